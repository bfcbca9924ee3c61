# Generated from src/vigil/_async/resources/history.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

from ..._core import RequestOptions
from ..._models import HistoryEntry
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class History(Resource):
    @cached_property
    def with_raw_response(self) -> HistoryWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return HistoryWithRawResponse(self)

    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> Paginator[HistoryEntry]:
        return self._list("/history", HistoryEntry, {"projectId": project_id, "limit": limit, "cursor": cursor}, options)

    def retrieve(self, entry_id: str, **options: Unpack[RequestOptions]) -> HistoryEntry:
        """The entry with the rows its last statement returned."""
        return self._client.fetch("GET", path("/history/{}", entry_id), HistoryEntry, options=options)

    def delete(self, entry_id: str, **options: Unpack[RequestOptions]) -> None:
        return self._client.fetch_none("DELETE", path("/history/{}", entry_id), options=options)


class HistoryWithRawResponse:
    def __init__(self, history: History) -> None:
        self.list = to_raw_response_wrapper(history.list)
        self.retrieve = to_raw_response_wrapper(history.retrieve)
        self.delete = to_raw_response_wrapper(history.delete)
