from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Dict, Optional, Union

import httpx

from ..._core import Destination, NOT_GIVEN, NotGiven, RequestOptions, body_of, open_destination
from ..._models import Export, ExportFormat, ExportResource
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncExports(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncExportsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncExportsWithRawResponse(self)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> AsyncPaginator[Export]:
        return self._list("/exports", Export, {"limit": limit, "cursor": cursor}, options)

    async def create(
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
        return await self._client.fetch("POST", "/exports", Export, json=body, idempotency_key=idempotency_key, options=options)

    async def retrieve(self, export_id: str, **options: Unpack[RequestOptions]) -> Export:
        return await self._client.fetch("GET", path("/exports/{}", export_id), Export, options=options)

    async def download(self, export_id: str, destination: Destination, **options: Unpack[RequestOptions]) -> int:
        """Writes a completed export's file to `destination` (a path, or a binary stream such as
        an open file or `io.BytesIO`) as it arrives; returns the number of bytes written."""

        async def write(response: httpx.Response) -> int:
            written = 0
            try:
                with open_destination(destination) as out:
                    async for chunk in response.aiter_bytes():
                        out.write(chunk)
                        written += len(chunk)
            finally:
                await response.aclose()
            return written

        return await self._client.fetch_with("GET", path("/exports/{}/download", export_id), write, stream=True, options=options)


class AsyncExportsWithRawResponse:
    def __init__(self, exports: AsyncExports) -> None:
        self.list = async_to_raw_response_wrapper(exports.list)
        self.create = async_to_raw_response_wrapper(exports.create)
        self.retrieve = async_to_raw_response_wrapper(exports.retrieve)
        self.download = async_to_raw_response_wrapper(exports.download)
