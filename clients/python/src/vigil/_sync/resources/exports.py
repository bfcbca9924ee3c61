# Generated from src/vigil/_async/resources/exports.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Dict, Optional, Union

import httpx

from ..._core import Destination, NOT_GIVEN, NotGiven, RequestOptions, body_of, open_destination
from ..._models import Export, ExportFormat, ExportResource
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Exports(Resource):
    @cached_property
    def with_raw_response(self) -> ExportsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return ExportsWithRawResponse(self)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> Paginator[Export]:
        return self._list("/exports", Export, {"limit": limit, "cursor": cursor}, options)

    def create(
        self,
        *,
        resource: ExportResource,
        format: ExportFormat,
        dataset_id: Union[str, NotGiven] = NOT_GIVEN,
        project_id: Union[str, NotGiven] = NOT_GIVEN,
        filters: Union[Dict[str, Any], NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Export:
        """Starts an export (`pending`); `retrieve` later shows it `completed` or `failed`."""
        body = body_of({"resource": resource, "format": format, "datasetId": dataset_id, "projectId": project_id, "filters": filters})
        return self._client.fetch("POST", "/exports", Export, json=body, idempotency_key=idempotency_key, options=options)

    def retrieve(self, export_id: str, **options: Unpack[RequestOptions]) -> Export:
        return self._client.fetch("GET", path("/exports/{}", export_id), Export, options=options)

    def download(self, export_id: str, destination: Destination, **options: Unpack[RequestOptions]) -> int:
        """Writes a completed export's file to `destination` (a path, or a binary stream such as
        an open file or `io.BytesIO`) as it arrives; returns the number of bytes written."""

        def write(response: httpx.Response) -> int:
            written = 0
            try:
                with open_destination(destination) as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        written += len(chunk)
            finally:
                response.close()
            return written

        return self._client.fetch_with("GET", path("/exports/{}/download", export_id), write, stream=True, options=options)


class ExportsWithRawResponse:
    def __init__(self, exports: Exports) -> None:
        self.list = to_raw_response_wrapper(exports.list)
        self.create = to_raw_response_wrapper(exports.create)
        self.retrieve = to_raw_response_wrapper(exports.retrieve)
        self.download = to_raw_response_wrapper(exports.download)
