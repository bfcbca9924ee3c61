# Generated from src/vigil/_async/resources/history.py by scripts/generate_sync.py: do not edit.
from typing import Optional

from ..._models import HistoryEntry
from .._paginator import Paginator
from ._base import Resource, path


class History(Resource):
    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[HistoryEntry]:
        return self._list("/history", HistoryEntry, {"projectId": project_id, "limit": limit, "cursor": cursor})

    def retrieve(self, entry_id: str) -> HistoryEntry:
        """The entry with the rows its last statement returned."""
        return self._client.fetch("GET", path("/history/{}", entry_id), HistoryEntry)

    def delete(self, entry_id: str) -> None:
        self._client.request("DELETE", path("/history/{}", entry_id))
