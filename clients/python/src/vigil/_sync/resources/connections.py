# Generated from src/vigil/_async/resources/connections.py by scripts/generate_sync.py: do not edit.
from typing import Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of
from ..._models import Connection, Dataset, DbType, SslMode
from .._paginator import Paginator
from ._base import Resource, path


class Connections(Resource):
    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[Connection]:
        return self._list("/connections", Connection, {"limit": limit, "cursor": cursor})

    def create(
        self,
        *,
        name: str,
        db_type: DbType,
        host: str,
        database: str,
        username: str,
        password: str,
        port: Union[int, NotGiven] = NOT_GIVEN,
        ssl_mode: Union[SslMode, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> Connection:
        """Stores a database connection; the password is kept encrypted and never returned."""
        body = body_of(
            {
                "name": name,
                "dbType": db_type,
                "host": host,
                "port": port,
                "database": database,
                "username": username,
                "password": password,
                "sslMode": ssl_mode,
            }
        )
        return self._client.fetch("POST", "/connections", Connection, json=body, idempotency_key=idempotency_key)

    def retrieve(self, connection_id: str) -> Connection:
        return self._client.fetch("GET", path("/connections/{}", connection_id), Connection)

    def update(
        self,
        connection_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        db_type: Union[DbType, NotGiven] = NOT_GIVEN,
        host: Union[str, NotGiven] = NOT_GIVEN,
        port: Union[int, NotGiven] = NOT_GIVEN,
        database: Union[str, NotGiven] = NOT_GIVEN,
        username: Union[str, NotGiven] = NOT_GIVEN,
        password: Union[str, NotGiven] = NOT_GIVEN,
        ssl_mode: Union[SslMode, NotGiven] = NOT_GIVEN,
    ) -> Connection:
        body = body_of(
            {
                "name": name,
                "dbType": db_type,
                "host": host,
                "port": port,
                "database": database,
                "username": username,
                "password": password,
                "sslMode": ssl_mode,
            }
        )
        return self._client.fetch("PATCH", path("/connections/{}", connection_id), Connection, json=body)

    def delete(self, connection_id: str) -> None:
        self._client.request("DELETE", path("/connections/{}", connection_id))

    def test(self, connection_id: str, *, idempotency_key: Optional[str] = None) -> Connection:
        """Connects now; the answer's `status` is `connected` or `error` (with `last_error`)."""
        route = path("/connections/{}/test", connection_id)
        return self._client.fetch("POST", route, Connection, idempotency_key=idempotency_key)

    def import_(
        self,
        connection_id: str,
        *,
        project_id: str,
        table: Union[str, NotGiven] = NOT_GIVEN,
        query: Union[str, NotGiven] = NOT_GIVEN,
        name: Union[str, NotGiven] = NOT_GIVEN,
        dataset_id: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> Dataset:
        """Starts copying a table (or a SELECT's result) into a dataset; the answer is `importing`
        and `datasets.retrieve` later shows `ready` or `failed`. (`import` is a Python keyword.)"""
        body = body_of({"projectId": project_id, "table": table, "query": query, "name": name, "datasetId": dataset_id})
        route = path("/connections/{}/import", connection_id)
        return self._client.fetch("POST", route, Dataset, json=body, idempotency_key=idempotency_key)
