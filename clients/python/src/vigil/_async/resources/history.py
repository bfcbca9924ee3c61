from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

from ..._core import RequestOptions
from ..._models import HistoryEntry
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncHistory(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncHistoryWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncHistoryWithRawResponse(self)

    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> AsyncPaginator[HistoryEntry]:
        return self._list("/history", HistoryEntry, {"projectId": project_id, "limit": limit, "cursor": cursor}, options)

    async def retrieve(self, entry_id: str, **options: Unpack[RequestOptions]) -> HistoryEntry:
        """The entry with the rows its last statement returned."""
        return await self._client.fetch("GET", path("/history/{}", entry_id), HistoryEntry, options=options)

    async def delete(self, entry_id: str, **options: Unpack[RequestOptions]) -> None:
        return await self._client.fetch_none("DELETE", path("/history/{}", entry_id), options=options)


class AsyncHistoryWithRawResponse:
    def __init__(self, history: AsyncHistory) -> None:
        self.list = async_to_raw_response_wrapper(history.list)
        self.retrieve = async_to_raw_response_wrapper(history.retrieve)
        self.delete = async_to_raw_response_wrapper(history.delete)
