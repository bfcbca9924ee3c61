from typing import Optional

from ..._models import HistoryEntry
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path


class AsyncHistory(AsyncResource):
    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaginator[HistoryEntry]:
        return self._list("/history", HistoryEntry, {"projectId": project_id, "limit": limit, "cursor": cursor})

    async def retrieve(self, entry_id: str) -> HistoryEntry:
        """The entry with the rows its last statement returned."""
        return await self._client.fetch("GET", path("/history/{}", entry_id), HistoryEntry)

    async def delete(self, entry_id: str) -> None:
        await self._client.request("DELETE", path("/history/{}", entry_id))
