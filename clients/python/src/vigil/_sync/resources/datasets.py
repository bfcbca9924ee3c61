# Generated from src/vigil/_async/resources/datasets.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional, Union

from ..._core import FileInput, NOT_GIVEN, NotGiven, RequestOptions, query_of, upload_file
from ..._models import Dataset, Row
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Datasets(Resource):
    @cached_property
    def with_raw_response(self) -> DatasetsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return DatasetsWithRawResponse(self)

    def upload(
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
        return self._client.fetch(
            "POST",
            path("/projects/{}/datasets", project_id),
            Dataset,
            params=query_of({"name": name, "sheet": sheet, "types": types}),
            files={"file": part},
            idempotency_key=idempotency_key,
            options=options,
        )

    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> Paginator[Dataset]:
        return self._list("/datasets", Dataset, {"projectId": project_id, "limit": limit, "cursor": cursor}, options)

    def retrieve(self, dataset_id: str, **options: Unpack[RequestOptions]) -> Dataset:
        return self._client.fetch("GET", path("/datasets/{}", dataset_id), Dataset, options=options)

    def delete(self, dataset_id: str, **options: Unpack[RequestOptions]) -> None:
        return self._client.fetch_none("DELETE", path("/datasets/{}", dataset_id), options=options)

    def rows(self, dataset_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> Paginator[Row]:
        """The dataset's rows in file order, each a dict keyed by column name."""
        return self._list_items(path("/datasets/{}/rows", dataset_id), dict, {"limit": limit, "cursor": cursor}, options)


class DatasetsWithRawResponse:
    def __init__(self, datasets: Datasets) -> None:
        self.upload = to_raw_response_wrapper(datasets.upload)
        self.list = to_raw_response_wrapper(datasets.list)
        self.retrieve = to_raw_response_wrapper(datasets.retrieve)
        self.delete = to_raw_response_wrapper(datasets.delete)
        self.rows = to_raw_response_wrapper(datasets.rows)
