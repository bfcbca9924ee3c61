"""What `list()` returns in the async client: awaitable (`page = await v.alerts.list()`) and
async-iterable (`async for alert in v.alerts.list()`), fetching nothing until used.

Written for each binding, not generated: the sync client's `list()` simply returns the page."""

from typing import Any, AsyncIterator, Awaitable, Callable, Generator, Generic, TypeVar

from ._pagination import AsyncPage

T = TypeVar("T")


class AsyncPaginator(Generic[T]):
    def __init__(self, fetch_first: Callable[[], Awaitable[AsyncPage[T]]]) -> None:
        self._fetch_first = fetch_first

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._fetch_first().__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for item in await self._fetch_first():
            yield item


def paginate(fetch_first: Callable[[], Awaitable[AsyncPage[T]]]) -> AsyncPaginator[T]:
    return AsyncPaginator(fetch_first)
