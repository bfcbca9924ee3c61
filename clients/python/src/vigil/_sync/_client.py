# Generated from src/vigil/_async/_client.py by scripts/generate_sync.py: do not edit.
"""Vigil: the options and the one request path (auth, timeout, retries, idempotency)."""

import time
from types import TracebackType
from typing import Any, Callable, Dict, Mapping, Optional, Type, TypeVar, Union, cast

import httpx

from .._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    NOT_GIVEN,
    ClientOptions,
    NotGiven,
    RequestOptions,
    connection_error,
    request_headers,
    request_params,
    retry_delay,
)
from .._decode import decode
from .._errors import VigilError, error_from_response
from ._pagination import Page
from ._response import APIResponse, raw_response_wanted
from .resources import (
    Alerts,
    Chat,
    Connections,
    Dashboards,
    Datasets,
    Embed,
    Exports,
    History,
    Integrations,
    Projects,
    Usage,
    Users,
    Webhooks,
)

T = TypeVar("T")


class Vigil:
    """A client of one Vigil organization's REST API.

    `api_key` and `base_url` default to `VIGIL_API_KEY` and `VIGIL_BASE_URL`; `base_url` is the
    API's root, ending in `/api/v1`. Pass your own `http_client` to configure proxies,
    certificates or event hooks; the client then leaves closing it to you. `default_headers` go
    with every request.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: Optional[httpx.Client] = None,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self._options = ClientOptions.resolve(api_key, base_url, timeout, max_retries, default_headers)
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)
        self.projects = Projects(self)
        self.alerts = Alerts(self)
        self.users = Users(self)
        self.webhooks = Webhooks(self)
        self.datasets = Datasets(self)
        self.connections = Connections(self)
        self.chat = Chat(self)
        self.history = History(self)
        self.usage = Usage(self)
        self.exports = Exports(self)
        self.dashboards = Dashboards(self)
        self.embed = Embed(self)
        self.integrations = Integrations(self)

    @property
    def base_url(self) -> str:
        return self._options.base_url

    @property
    def max_retries(self) -> int:
        return self._options.max_retries

    @property
    def timeout(self) -> Optional[float]:
        return self._options.timeout

    def with_options(
        self,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Union[float, None, NotGiven] = NOT_GIVEN,
        max_retries: Optional[int] = None,
        default_headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.Client] = None,
    ) -> "Vigil":
        """A copy of this client with some options changed (`default_headers` are added to the
        current ones). It shares this client's connections, and closing it leaves them open."""
        copy = Vigil(
            api_key=api_key or self._options.api_key,
            base_url=base_url or self._options.base_url,
            timeout=self._options.timeout if isinstance(timeout, NotGiven) else timeout,
            max_retries=self._options.max_retries if max_retries is None else max_retries,
            http_client=http_client or self._http,
            default_headers={**self._options.default_headers, **(default_headers or {})},
        )
        return copy

    def request(
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
        options: Optional[RequestOptions] = None,
    ) -> httpx.Response:
        """Sends one API request, retrying what is worth retrying; raises the error of the answer.

        With `stream=True` the body is left unread: read it or close the response.
        """
        call: RequestOptions = options or {}
        headers = request_headers(self._options, method, idempotency_key, call)
        query = request_params(params, call)
        timeout = call["timeout"] if "timeout" in call else self._options.timeout
        max_retries = call.get("max_retries", self._options.max_retries)
        retries_done = 0
        while True:
            request = self._http.build_request(
                method,
                self._options.base_url + path,
                params=query,
                json=json,
                files=files,
                data=data,
                headers=headers,
                timeout=timeout,
            )
            error: VigilError
            try:
                response = self._http.send(request, stream=True)
            except httpx.TransportError as exception:
                error = connection_error(exception)
            else:
                if response.is_success:
                    if not stream:
                        response.read()
                    return response
                try:
                    response.read()
                finally:
                    response.close()
                error = error_from_response(response)
            delay = retry_delay(error, retries_done, max_retries)
            if delay is None:
                raise error
            retries_done += 1
            time.sleep(delay)

    def fetch_with(
        self,
        method: str,
        path: str,
        parse: Callable[[httpx.Response], T],
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Optional[Dict[str, Any]] = None,
        files: Optional[Dict[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        stream: bool = False,
        options: Optional[RequestOptions] = None,
    ) -> T:
        """`parse` of the answer; under `with_raw_response`, the answer itself, read whole (an
        `APIResponse` whose `parse()` is `parse`)."""
        raw = raw_response_wanted()
        response = self.request(
            method, path, params=params, json=json, files=files, idempotency_key=idempotency_key, stream=stream and not raw, options=options
        )
        if raw:
            return cast(T, APIResponse(response, parse))
        return parse(response)

    def fetch(
        self,
        method: str,
        path: str,
        model: Type[T],
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Optional[Dict[str, Any]] = None,
        files: Optional[Dict[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        options: Optional[RequestOptions] = None,
    ) -> T:
        """One resource: the answer's `data`, as `model`."""

        def parse(response: httpx.Response) -> T:
            return decode(model, response.json()["data"])

        return self.fetch_with(method, path, parse, params=params, json=json, files=files, idempotency_key=idempotency_key, options=options)

    def fetch_none(self, method: str, path: str, *, options: Optional[RequestOptions] = None) -> None:
        """A call answered with no content (a delete)."""

        def parse(response: httpx.Response) -> None:
            return None

        return self.fetch_with(method, path, parse, options=options)

    def fetch_page(
        self, path: str, item: Callable[[Dict[str, Any]], T], params: Mapping[str, Any], options: Optional[RequestOptions] = None
    ) -> Page[T]:
        """One page of a list, able to fetch the pages after it (with the same options)."""

        def parse(response: httpx.Response) -> Page[T]:
            body = response.json()
            meta = body["meta"]

            def fetch_next(cursor: str) -> Page[T]:
                return self.fetch_page(path, item, {**params, "cursor": cursor}, options)

            return Page(
                data=[item(element) for element in body["data"]],
                has_more=bool(meta["hasMore"]),
                next_cursor=meta.get("nextCursor"),
                fetch_next=fetch_next,
            )

        return self.fetch_with("GET", path, parse, params=params, options=options)

    def close(self) -> None:
        """Releases the connection pool (unless it came from `http_client`)."""
        if self._owns_http_client:
            self._http.close()

    def __enter__(self) -> "Vigil":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()
