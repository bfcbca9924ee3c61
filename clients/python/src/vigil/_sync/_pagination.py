# Generated from src/vigil/_async/_pagination.py by scripts/generate_sync.py: do not edit.
"""A page of a list, and lazy iteration over every item of every page."""

from typing import Iterator, Callable, Generic, List, Optional, TypeVar

T = TypeVar("T")


class Page(Generic[T]):
    """One page: `data`, `has_more`, `next_cursor`. Iterating it walks this page's items and then
    fetches the following pages one at a time, as they are reached."""

    def __init__(
        self,
        data: List[T],
        has_more: bool,
        next_cursor: Optional[str],
        fetch_next: Callable[[str], "Page[T]"],
    ) -> None:
        self.data = data
        self.has_more = has_more
        self.next_cursor = next_cursor
        self._fetch_next = fetch_next

    def next_page(self) -> Optional["Page[T]"]:
        """The page after this one, or None on the last page."""
        if not self.has_more or self.next_cursor is None:
            return None
        return self._fetch_next(self.next_cursor)

    def __iter__(self) -> Iterator[T]:
        page: Optional[Page[T]] = self
        while page is not None:
            for item in page.data:
                yield item
            page = page.next_page()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data=[{len(self.data)} items], has_more={self.has_more}, next_cursor={self.next_cursor!r})"
