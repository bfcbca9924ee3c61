"""Lets one test body drive both clients: `await resolve(v.alerts.create(...))` is the sync call's
result or the awaited async one, and `await collect(v.alerts.list())` walks either kind of page."""

from typing import AsyncIterable, Awaitable, Iterable, List, TypeVar, Union, cast

from vigil import AsyncVigil, Vigil

T = TypeVar("T")
AnyVigil = Union[Vigil, AsyncVigil]


async def resolve(value: Union[T, Awaitable[T]]) -> T:
    if isinstance(value, Awaitable):
        return await cast(Awaitable[T], value)
    return value


async def collect(items: Union[Iterable[T], AsyncIterable[T]]) -> List[T]:
    if isinstance(items, AsyncIterable):
        return [item async for item in items]
    return list(items)
