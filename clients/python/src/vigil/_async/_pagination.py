"""A page of a list, and lazy iteration over every item of every page."""

from typing import AsyncIterator, Awaitable, Callable, Generic, List, Optional, TypeVar

T = TypeVar("T")


class AsyncPage(Generic[T]):
    """One page: `data`, `has_more`, `next_cursor`. Iterating it walks this page's items and then
    fetches the following pages one at a time, as they are reached."""

    def __init__(
        self,
        data: List[T],
        has_more: bool,
        next_cursor: Optional[str],
        fetch_next: Callable[[str], Awaitable["AsyncPage[T]"]],
    ) -> None:
        self.data = data
        self.has_more = has_more
        self.next_cursor = next_cursor
        self._fetch_next = fetch_next

    async def next_page(self) -> Optional["AsyncPage[T]"]:
        """The page after this one, or None on the last page."""
        if not self.has_more or self.next_cursor is None:
            return None
        return await self._fetch_next(self.next_cursor)

    async def __aiter__(self) -> AsyncIterator[T]:
        page: Optional[AsyncPage[T]] = self
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data=[{len(self.data)} items], has_more={self.has_more}, next_cursor={self.next_cursor!r})"
