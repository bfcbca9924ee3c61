"""The error classes: one base, `APIError` for answers from the server, and one subclass per kind."""

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Dict, List, Mapping, Optional, Type, cast

import httpx


class VigilError(Exception):
    """Every error this library raises."""


class APIConnectionError(VigilError):
    """The request did not get an answer: refused connection, DNS failure, connection dropped."""

    def __init__(self, message: str = "Connection error.") -> None:
        super().__init__(message)
        self.message = message


class APITimeoutError(APIConnectionError):
    """The request got no answer within the timeout."""

    def __init__(self, message: str = "Request timed out.") -> None:
        super().__init__(message)


class WebhookVerificationError(VigilError):
    """A webhook delivery whose signature, timestamp or body cannot be trusted."""


class APIError(VigilError):
    """The server answered with an error (`{"error", "code", "details?", "requestId"}`)."""

    status: int
    code: str
    message: str
    request_id: Optional[str]
    details: Optional[List[Dict[str, Any]]]
    headers: httpx.Headers

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str] = None,
        details: Optional[List[Dict[str, Any]]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (request {request_id})" if request_id else ""))
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.details = details
        self.headers = httpx.Headers(headers or {})


class AuthenticationError(APIError):
    """401: the API key is missing, malformed, unknown, revoked or expired."""


class PlanRequiredError(APIError):
    """403: the organization's plan has no API access."""


class NotFoundError(APIError):
    """404: no such resource in your organization."""


class ConflictError(APIError):
    """409: the change is not allowed in the resource's current state."""


class ValidationError(APIError):
    """422: the request is invalid; `details` names each field."""


class RateLimitError(APIError):
    """429: the organization's requests are used up; `retry_after` says for how many seconds."""

    @property
    def retry_after(self) -> Optional[float]:
        return parse_retry_after(self.headers.get("retry-after"))


class InternalServerError(APIError):
    """5xx: a failure on the server's side."""


_BY_STATUS: Dict[int, Type[APIError]] = {
    401: AuthenticationError,
    403: PlanRequiredError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
}


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """`Retry-After` as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def error_from_response(response: httpx.Response) -> APIError:
    """The error class for an answer's status, filled from its body in the error format."""
    body: Any
    try:
        body = response.json()
    except ValueError:
        body = None
    fields = cast(Dict[str, Any], body) if isinstance(body, dict) else {}
    status = response.status_code
    message = fields.get("error")
    code = fields.get("code")
    details = fields.get("details")
    error_class = _BY_STATUS.get(status, InternalServerError if status >= 500 else APIError)
    return error_class(
        status=status,
        code=code if isinstance(code, str) else f"HTTP_{status}",
        message=message if isinstance(message, str) else (response.text[:500] or response.reason_phrase),
        request_id=fields.get("requestId") or response.headers.get("x-request-id"),
        details=cast(List[Dict[str, Any]], details) if isinstance(details, list) else None,
        headers=response.headers,
    )
