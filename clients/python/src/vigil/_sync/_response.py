# Generated from src/vigil/_async/_response.py by scripts/generate_sync.py: do not edit.
"""Raw responses: `client.<namespace>.with_raw_response.<method>(…)` answers an `APIResponse`
(the status, the headers, and `parse()` for what the method returns), as in openai-python."""

from __future__ import annotations

import functools
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Callable, Generic, Optional, TypeVar, cast

import httpx

if TYPE_CHECKING:
    from typing_extensions import ParamSpec

    P = ParamSpec("P")

T = TypeVar("T")

# Set while a `with_raw_response` method runs: the client then answers the response, not the result.
_raw_response: ContextVar[bool] = ContextVar("vigil_raw_response", default=False)


def raw_response_wanted() -> bool:
    return _raw_response.get()


class APIResponse(Generic[T]):
    """A successful answer: `status_code`, `headers`, `http_response`, and `parse()` for the result."""

    def __init__(self, http_response: httpx.Response, parse: Callable[[httpx.Response], T]) -> None:
        self.http_response = http_response
        self._parse = parse

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def request_id(self) -> Optional[str]:
        return self.http_response.headers.get("x-request-id")

    def parse(self) -> T:
        """What the method returns without `with_raw_response`."""
        return self._parse(self.http_response)

    def json(self) -> Any:
        return self.http_response.json()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} [{self.status_code}] {self.http_response.request.method} {self.http_response.request.url}>"


def to_raw_response_wrapper(method: Callable[P, T]) -> Callable[P, APIResponse[T]]:
    """`method`, answering its `APIResponse` instead of its result."""

    @functools.wraps(method)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        token = _raw_response.set(True)
        try:
            return cast(APIResponse[T], method(*args, **kwargs))
        finally:
            _raw_response.reset(token)

    return wrapped
