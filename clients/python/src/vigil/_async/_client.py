"""AsyncVigil: the options and the one request path (auth, timeout, retries, idempotency)."""

import asyncio
from types import TracebackType
from typing import Any, Callable, Dict, Mapping, Optional, Type, TypeVar

import httpx

from .._core import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ClientOptions, connection_error, request_headers, retry_delay
from .._decode import decode
from .._errors import VigilError, error_from_response
from ._pagination import AsyncPage
from .resources import (
    AsyncAlerts,
    AsyncChat,
    AsyncConnections,
    AsyncDashboards,
    AsyncDatasets,
    AsyncEmbed,
    AsyncExports,
    AsyncHistory,
    AsyncIntegrations,
    AsyncProjects,
    AsyncUsage,
    AsyncUsers,
    AsyncWebhooks,
)

T = TypeVar("T")


class AsyncVigil:
    """A client of one Vigil organization's REST API.

    `api_key` and `base_url` default to `VIGIL_API_KEY` and `VIGIL_BASE_URL`; `base_url` is the
    API's root, ending in `/api/v1`. Pass your own `http_client` to configure proxies,
    certificates or event hooks; the client then leaves closing it to you.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self._options = ClientOptions.resolve(api_key, base_url, timeout, max_retries)
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=timeout)
        self.projects = AsyncProjects(self)
        self.alerts = AsyncAlerts(self)
        self.users = AsyncUsers(self)
        self.webhooks = AsyncWebhooks(self)
        self.datasets = AsyncDatasets(self)
        self.connections = AsyncConnections(self)
        self.chat = AsyncChat(self)
        self.history = AsyncHistory(self)
        self.usage = AsyncUsage(self)
        self.exports = AsyncExports(self)
        self.dashboards = AsyncDashboards(self)
        self.embed = AsyncEmbed(self)
        self.integrations = AsyncIntegrations(self)

    @property
    def base_url(self) -> str:
        return self._options.base_url

    @property
    def max_retries(self) -> int:
        return self._options.max_retries

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Optional[Dict[str, Any]] = None,
        files: Optional[Dict[str, Any]] = None,
        data: Optional[Dict[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        stream: bool = False,
    ) -> httpx.Response:
        """Sends one API request, retrying what is worth retrying; raises the error of the answer.

        With `stream=True` the body is left unread: read it or close the response.
        """
        headers = request_headers(self._options, method, idempotency_key)
        retries_done = 0
        while True:
            request = self._http.build_request(
                method,
                self._options.base_url + path,
                params=params,
                json=json,
                files=files,
                data=data,
                headers=headers,
                timeout=self._options.timeout,
            )
            error: VigilError
            try:
                response = await self._http.send(request, stream=True)
            except httpx.TransportError as exception:
                error = connection_error(exception)
            else:
                if response.is_success:
                    if not stream:
                        await response.aread()
                    return response
                try:
                    await response.aread()
                finally:
                    await response.aclose()
                error = error_from_response(response)
            delay = retry_delay(error, retries_done, self._options.max_retries)
            if delay is None:
                raise error
            retries_done += 1
            await asyncio.sleep(delay)

    async def fetch(
        self,
        method: str,
        path: str,
        model: Type[T],
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Optional[Dict[str, Any]] = None,
        files: Optional[Dict[str, Any]] = None,
        data: Optional[Dict[str, Any]] = None,
        idempotency_key: Optional[str] = None,
    ) -> T:
        """One resource: the request's `data`, as `model`."""
        response = await self.request(method, path, params=params, json=json, files=files, data=data, idempotency_key=idempotency_key)
        return decode(model, response.json()["data"])

    async def fetch_page(self, path: str, item: Callable[[Dict[str, Any]], T], params: Mapping[str, Any]) -> AsyncPage[T]:
        """One page of a list, able to fetch the pages after it."""
        response = await self.request("GET", path, params=params)
        body = response.json()
        meta = body["meta"]

        async def fetch_next(cursor: str) -> AsyncPage[T]:
            return await self.fetch_page(path, item, {**params, "cursor": cursor})

        return AsyncPage(
            data=[item(element) for element in body["data"]],
            has_more=bool(meta["hasMore"]),
            next_cursor=meta.get("nextCursor"),
            fetch_next=fetch_next,
        )

    async def aclose(self) -> None:
        """Releases the connection pool (unless it came from `http_client`)."""
        if self._owns_http_client:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncVigil":
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.aclose()
