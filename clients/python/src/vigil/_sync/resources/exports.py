# Generated from src/vigil/_async/resources/exports.py by scripts/generate_sync.py: do not edit.
from typing import Any, Dict, Optional, Union

from ..._core import NOT_GIVEN, Destination, NotGiven, body_of, open_destination
from ..._models import Export, ExportFormat, ExportResource
from .._paginator import Paginator
from ._base import Resource, path


class Exports(Resource):
    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[Export]:
        return self._list("/exports", Export, {"limit": limit, "cursor": cursor})

    def create(
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
        return self._client.fetch("POST", "/exports", Export, json=body, idempotency_key=idempotency_key)

    def retrieve(self, export_id: str) -> Export:
        return self._client.fetch("GET", path("/exports/{}", export_id), Export)

    def download(self, export_id: str, destination: Destination) -> int:
        """Writes a completed export's file to `destination` (a path, or a binary stream such as
        an open file or `io.BytesIO`) as it arrives; returns the number of bytes written."""
        response = self._client.request("GET", path("/exports/{}/download", export_id), stream=True)
        written = 0
        try:
            with open_destination(destination) as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
                    written += len(chunk)
        finally:
            response.close()
        return written
