"""What every resource namespace stands on: its client, quoted paths and list pages."""

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Type, TypeVar
from urllib.parse import quote

from ..._core import RequestOptions, query_of
from ..._decode import decode
from .._paginator import AsyncPaginator, paginate

if TYPE_CHECKING:
    from .._client import AsyncVigil

T = TypeVar("T")


def path(template: str, *ids: str) -> str:
    """`template` with each `{}` replaced by an id, quoted so that no id can change the route."""
    return template.format(*(quote(str(one), safe="") for one in ids))


class AsyncResource:
    def __init__(self, client: "AsyncVigil") -> None:
        self._client = client

    def _list_items(
        self, route: str, item: Callable[[Dict[str, Any]], T], params: Mapping[str, Any], options: RequestOptions
    ) -> AsyncPaginator[T]:
        query = query_of(params)
        return paginate(lambda: self._client.fetch_page(route, item, query, options))

    def _list(self, route: str, model: Type[T], params: Mapping[str, Any], options: RequestOptions) -> AsyncPaginator[T]:
        return self._list_items(route, partial(decode, model), params, options)
