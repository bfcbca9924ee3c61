from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional, Union

from ..._core import FileInput, NOT_GIVEN, NotGiven, RequestOptions, query_of, upload_file
from ..._models import Dataset, Row
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncDatasets(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncDatasetsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncDatasetsWithRawResponse(self)

    async def upload(
        self,
        project_id: str,
        file: FileInput,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        sheet: Union[str, NotGiven] = NOT_GIVEN,
        types: Union[str, NotGiven] = NOT_GIVEN,
        file_name: Optional[str] = None,
        content_type: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Dataset:
        """Uploads a CSV or Excel file (a path, bytes or a binary file object) as a new dataset.

        `name` defaults to the file name without its extension; `sheet` picks an Excel worksheet;
        `types` overrides inferred column types (`"amount:numeric,day:date"`). The content type
        follows the file name's extension (`.xlsx`, `.tsv`, else CSV) unless given.
        """
        part = upload_file(file, file_name, content_type)
        return await self._client.fetch(
            "POST",
            path("/projects/{}/datasets", project_id),
            Dataset,
            params=query_of({"name": name, "sheet": sheet, "types": types}),
            files={"file": part},
            idempotency_key=idempotency_key,
            options=options,
        )

    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> AsyncPaginator[Dataset]:
        return self._list("/datasets", Dataset, {"projectId": project_id, "limit": limit, "cursor": cursor}, options)

    async def retrieve(self, dataset_id: str, **options: Unpack[RequestOptions]) -> Dataset:
        return await self._client.fetch("GET", path("/datasets/{}", dataset_id), Dataset, options=options)

    async def delete(self, dataset_id: str, **options: Unpack[RequestOptions]) -> None:
        return await self._client.fetch_none("DELETE", path("/datasets/{}", dataset_id), options=options)

    def rows(self, dataset_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> AsyncPaginator[Row]:
        """The dataset's rows in file order, each a dict keyed by column name."""
        return self._list_items(path("/datasets/{}/rows", dataset_id), dict, {"limit": limit, "cursor": cursor}, options)


class AsyncDatasetsWithRawResponse:
    def __init__(self, datasets: AsyncDatasets) -> None:
        self.upload = async_to_raw_response_wrapper(datasets.upload)
        self.list = async_to_raw_response_wrapper(datasets.list)
        self.retrieve = async_to_raw_response_wrapper(datasets.retrieve)
        self.delete = async_to_raw_response_wrapper(datasets.delete)
        self.rows = async_to_raw_response_wrapper(datasets.rows)
