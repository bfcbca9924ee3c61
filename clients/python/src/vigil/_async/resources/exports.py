from typing import Any, Dict, Optional, Union

from ..._core import NOT_GIVEN, Destination, NotGiven, body_of, open_destination
from ..._models import Export, ExportFormat, ExportResource
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path


class AsyncExports(AsyncResource):
    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaginator[Export]:
        return self._list("/exports", Export, {"limit": limit, "cursor": cursor})

    async def create(
        self,
        *,
        resource: ExportResource,
        format: ExportFormat,
        dataset_id: Union[str, NotGiven] = NOT_GIVEN,
        project_id: Union[str, NotGiven] = NOT_GIVEN,
        filters: Union[Dict[str, Any], NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> Export:
        """Starts an export (`pending`); `retrieve` later shows it `completed` or `failed`."""
        body = body_of({"resource": resource, "format": format, "datasetId": dataset_id, "projectId": project_id, "filters": filters})
        return await self._client.fetch("POST", "/exports", Export, json=body, idempotency_key=idempotency_key)

    async def retrieve(self, export_id: str) -> Export:
        return await self._client.fetch("GET", path("/exports/{}", export_id), Export)

    async def download(self, export_id: str, destination: Destination) -> int:
        """Writes a completed export's file to `destination` (a path, or a binary stream such as
        an open file or `io.BytesIO`) as it arrives; returns the number of bytes written."""
        response = await self._client.request("GET", path("/exports/{}/download", export_id), stream=True)
        written = 0
        try:
            with open_destination(destination) as out:
                async for chunk in response.aiter_bytes():
                    out.write(chunk)
                    written += len(chunk)
        finally:
            await response.aclose()
        return written
