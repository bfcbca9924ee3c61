# Generated from src/vigil/_async/resources/datasets.py by scripts/generate_sync.py: do not edit.
from typing import Optional, Union

from ..._core import NOT_GIVEN, FileInput, NotGiven, query_of, upload_file
from ..._models import Dataset, Row
from .._paginator import Paginator
from ._base import Resource, path


class Datasets(Resource):
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
        )

    def list(self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[Dataset]:
        return self._list("/datasets", Dataset, {"projectId": project_id, "limit": limit, "cursor": cursor})

    def retrieve(self, dataset_id: str) -> Dataset:
        return self._client.fetch("GET", path("/datasets/{}", dataset_id), Dataset)

    def delete(self, dataset_id: str) -> None:
        self._client.request("DELETE", path("/datasets/{}", dataset_id))

    def rows(self, dataset_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[Row]:
        """The dataset's rows in file order, each a dict keyed by column name."""
        return self._list_items(path("/datasets/{}/rows", dataset_id), dict, {"limit": limit, "cursor": cursor})
