"""What the synchronous and asynchronous clients share and that does no I/O: options, headers,
request bodies, and the retry policy."""

import os
import platform
import random
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Dict, Generator, Mapping, Optional, Tuple, TypedDict, Union

import httpx

from ._errors import APIConnectionError, APIError, APITimeoutError, VigilError, parse_retry_after
from ._version import __version__


class NotGiven:
    """The default of optional arguments: "leave it out", as opposed to `None` ("set it to null")."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()

DEFAULT_BASE_URL = "http://127.0.0.1:3000/api/v1"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
# A Retry-After longer than this (an AI allowance that resets next month) is not worth waiting for.
MAX_RETRY_AFTER = 60.0
USER_AGENT = f"vigil-python/{__version__} (Python {platform.python_version()})"


QueryValue = Union[str, int, float, bool, None]


class RequestOptions(TypedDict, total=False):
    """What one call may override, as keyword arguments of every method (openai-python's names)."""

    timeout: Optional[float]
    """Seconds one attempt may take; None: no limit."""
    max_retries: int
    extra_headers: Mapping[str, str]
    """Headers for this call, over the client's `default_headers`."""
    extra_query: Mapping[str, QueryValue]
    """Query parameters added to this call's URL."""


@dataclass(frozen=True)
class ClientOptions:
    api_key: str
    base_url: str
    timeout: Optional[float]
    max_retries: int
    default_headers: Mapping[str, str]

    @classmethod
    def resolve(
        cls,
        api_key: Optional[str],
        base_url: Optional[str],
        timeout: Optional[float],
        max_retries: int,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> "ClientOptions":
        key = api_key if api_key is not None else os.environ.get("VIGIL_API_KEY")
        if not key:
            raise VigilError(
                "No API key: pass api_key=... or set the VIGIL_API_KEY environment variable "
                "(keys look like svc_live_...; an operator makes one with `npx vigil key create`)."
            )
        url = base_url or os.environ.get("VIGIL_BASE_URL") or DEFAULT_BASE_URL
        if max_retries < 0:
            raise VigilError("max_retries must be 0 or more.")
        return cls(api_key=key, base_url=url.rstrip("/"), timeout=timeout, max_retries=max_retries, default_headers=dict(default_headers or {}))


Body = Dict[str, Any]


def body_of(fields: Mapping[str, Any]) -> Body:
    """A JSON body without the arguments that were not given (a `None` given stays: it clears)."""
    return {name: value for name, value in fields.items() if not isinstance(value, NotGiven)}


def query_of(fields: Mapping[str, Any]) -> Dict[str, Union[str, int]]:
    """Query parameters without the ones left at `None`."""
    return {name: value for name, value in fields.items() if value is not None and not isinstance(value, NotGiven)}


def request_headers(options: ClientOptions, method: str, idempotency_key: Optional[str], call: RequestOptions) -> Dict[str, str]:
    headers = {
        "Accept": "application/json",
        "User-Agent": USER_AGENT,
        **options.default_headers,
        **call.get("extra_headers", {}),
        "Authorization": f"Bearer {options.api_key}",
    }
    if method == "POST":
        headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
    return headers


def request_params(params: Optional[Mapping[str, Any]], call: RequestOptions) -> Dict[str, Any]:
    """The method's query parameters and the call's `extra_query`, without the ones left at `None`."""
    return query_of({**(params or {}), **call.get("extra_query", {})})


def _is_retryable(error: VigilError) -> bool:
    """The server's `x-should-retry` when it sent one; else connection errors, 408, 429, 5xx, and
    409 while the first request with the same idempotency key still runs."""
    if isinstance(error, APIConnectionError):
        return True
    if not isinstance(error, APIError):
        return False
    hint = error.headers.get("x-should-retry")
    if hint in ("true", "false"):
        return hint == "true"
    status = error.status
    return status in (408, 429) or status >= 500 or (status == 409 and error.code == "IDEMPOTENCY_IN_PROGRESS")


def retry_delay(error: VigilError, retries_done: int, max_retries: int) -> Optional[float]:
    """Seconds to wait before trying again, or None when `error` should be raised.

    `Retry-After` is honoured as given; otherwise the wait doubles from 0.5 s up to 8 s, less up
    to a quarter at random so that many clients refused at once do not come back at once.
    """
    if retries_done >= max_retries or not _is_retryable(error):
        return None
    if isinstance(error, APIError):
        retry_after = parse_retry_after(error.headers.get("retry-after"))
        if retry_after is not None:
            return retry_after if retry_after <= MAX_RETRY_AFTER else None
    backoff = min(INITIAL_RETRY_DELAY * 2.0**retries_done, MAX_RETRY_DELAY)
    return backoff * (1.0 - 0.25 * random.random())


def connection_error(exception: httpx.TransportError) -> APIConnectionError:
    if isinstance(exception, httpx.TimeoutException):
        return APITimeoutError(f"Request timed out: {exception}")
    return APIConnectionError(f"Connection error: {exception}")


def iso_timestamp(value: Union[datetime, str]) -> str:
    """A time as the API writes it (UTC, milliseconds, `Z`); a naive datetime is taken as UTC."""
    if isinstance(value, str):
        return value
    moment = value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


FileInput = Union[str, "os.PathLike[str]", bytes, IO[bytes]]
Destination = Union[str, "os.PathLike[str]", IO[bytes]]

_CONTENT_TYPES = {
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".tsv": "text/tab-separated-values",
    ".txt": "text/plain",
}


def upload_file(file: FileInput, file_name: Optional[str], content_type: Optional[str]) -> Tuple[str, bytes, str]:
    """The multipart part of an upload: (file name, content, content type).

    The content is read whole, so that a retry can send it again."""
    if isinstance(file, bytes):
        name, content = file_name or "upload.csv", file
    elif isinstance(file, (str, os.PathLike)):
        name, content = file_name or Path(file).name, Path(file).read_bytes()
    else:
        given = getattr(file, "name", None)
        name, content = file_name or (Path(given).name if isinstance(given, str) else "upload.csv"), file.read()
    return name, content, content_type or _CONTENT_TYPES.get(Path(name).suffix.lower(), "text/csv")


@contextmanager
def open_destination(destination: Destination) -> Generator[IO[bytes], None, None]:
    """A path is opened (and closed) here; a stream is written to and left open for its owner."""
    if isinstance(destination, (str, os.PathLike)):
        with open(destination, "wb") as file:
            yield file
    else:
        yield destination
