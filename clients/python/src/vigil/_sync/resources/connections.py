# Generated from src/vigil/_async/resources/connections.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import Connection, Dataset, DbType, SslMode
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Connections(Resource):
    @cached_property
    def with_raw_response(self) -> ConnectionsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return ConnectionsWithRawResponse(self)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> Paginator[Connection]:
        return self._list("/connections", Connection, {"limit": limit, "cursor": cursor}, options)

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
        **options: Unpack[RequestOptions],
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
        return self._client.fetch("POST", "/connections", Connection, json=body, idempotency_key=idempotency_key, options=options)

    def retrieve(self, connection_id: str, **options: Unpack[RequestOptions]) -> Connection:
        return self._client.fetch("GET", path("/connections/{}", connection_id), Connection, options=options)

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
        **options: Unpack[RequestOptions],
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
        return self._client.fetch("PATCH", path("/connections/{}", connection_id), Connection, json=body, options=options)

    def delete(self, connection_id: str, **options: Unpack[RequestOptions]) -> None:
        return self._client.fetch_none("DELETE", path("/connections/{}", connection_id), options=options)

    def test(self, connection_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Connection:
        """Connects now; the answer's `status` is `connected` or `error` (with `last_error`)."""
        route = path("/connections/{}/test", connection_id)
        return self._client.fetch("POST", route, Connection, idempotency_key=idempotency_key, options=options)

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
        **options: Unpack[RequestOptions],
    ) -> Dataset:
        """Starts copying a table (or a SELECT's result) into a dataset; the answer is `importing`
        and `datasets.retrieve` later shows `ready` or `failed`. (`import` is a Python keyword.)"""
        body = body_of({"projectId": project_id, "table": table, "query": query, "name": name, "datasetId": dataset_id})
        route = path("/connections/{}/import", connection_id)
        return self._client.fetch("POST", route, Dataset, json=body, idempotency_key=idempotency_key, options=options)


class ConnectionsWithRawResponse:
    def __init__(self, connections: Connections) -> None:
        self.list = to_raw_response_wrapper(connections.list)
        self.create = to_raw_response_wrapper(connections.create)
        self.retrieve = to_raw_response_wrapper(connections.retrieve)
        self.update = to_raw_response_wrapper(connections.update)
        self.delete = to_raw_response_wrapper(connections.delete)
        self.test = to_raw_response_wrapper(connections.test)
        self.import_ = to_raw_response_wrapper(connections.import_)
