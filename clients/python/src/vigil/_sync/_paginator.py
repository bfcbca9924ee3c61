"""What `list()` returns in the sync client: the first page itself, fetched at once. Iterating it
walks every item of every page, fetching each following page when it is reached.

Written for each binding, not generated (see vigil/_async/_paginator.py)."""

from typing import Callable, TypeVar

from ._pagination import Page

T = TypeVar("T")

Paginator = Page


def paginate(fetch_first: Callable[[], Page[T]]) -> Page[T]:
    return fetch_first()
