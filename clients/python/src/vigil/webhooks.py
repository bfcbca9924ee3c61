"""Verifying Vigil's webhook deliveries: `vigil.webhooks.verify(raw_body, headers, secret)`.

Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`, `webhook-signature`) are checked
first; a request without them is checked against `X-Service-Signature`. Comparisons are
constant-time (`hmac.compare_digest`). Hand-written because the `standardwebhooks` package is not
in Debian, and the scheme is a few lines of `hmac`.
"""

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple, Union, cast

from ._decode import decode
from ._errors import WebhookVerificationError
from ._models import WebhookEvent

__all__ = ["verify", "WebhookVerificationError", "WebhookEvent"]

_SECRET_PREFIX = "whsec_"


class HeadersLike(Protocol):
    """A dict, `httpx.Headers`, Flask's or Starlette's request headers: anything with `items()`."""

    def items(self) -> Iterable[Tuple[str, str]]: ...


def _standard_key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret, validate=True)
    except binascii.Error as error:
        raise WebhookVerificationError("The secret is not a whsec_ secret (whsec_ and base64).") from error


def _verify_standard(body: bytes, delivery_id: str, timestamp: str, signatures: str, secrets: Sequence[str], tolerance: float) -> None:
    try:
        sent_at = int(timestamp)
    except ValueError as error:
        raise WebhookVerificationError("The webhook-timestamp header is not a number of seconds.") from error
    if abs(time.time() - sent_at) > tolerance:
        raise WebhookVerificationError(f"The webhook-timestamp is more than {tolerance:g} seconds away from now.")
    signed = delivery_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = [
        base64.b64encode(hmac.new(_standard_key(secret), signed, hashlib.sha256).digest()).decode() for secret in secrets
    ]
    given = [entry.split(",", 1)[1] for entry in signatures.split() if entry.startswith("v1,")]
    # Every pair is compared, so the time taken does not tell which one matched.
    matches = [hmac.compare_digest(one, other) for one in given for other in expected]
    if not any(matches):
        raise WebhookVerificationError("No webhook-signature matches the secret.")


def _verify_service(body: bytes, signature: str, secrets: Sequence[str]) -> None:
    matches = [
        hmac.compare_digest(signature, "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()) for secret in secrets
    ]
    if not any(matches):
        raise WebhookVerificationError("The X-Service-Signature does not match the secret.")


def verify(
    raw_body: Union[bytes, str],
    headers: HeadersLike,
    secret: Union[str, Sequence[str]],
    tolerance: float = 300,
) -> WebhookEvent:
    """The delivery's event, once its signature is proven; else `WebhookVerificationError`.

    `raw_body` must be the exact bytes received (not re-serialised JSON). `secret` is the
    webhook's `whsec_…` secret, or several (old and new, while you roll a rotation out).
    `tolerance` is how far, in seconds, `webhook-timestamp` may be from now. The older
    `X-Service-Signature` scheme carries no timestamp, so it cannot refuse a replayed request:
    it is used only when the Standard Webhooks headers are absent.
    """
    body = raw_body.encode() if isinstance(raw_body, str) else bytes(raw_body)
    secrets: List[str] = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise WebhookVerificationError("No secret to verify with.")
    by_name = {name.lower(): value for name, value in headers.items()}
    delivery_id: Optional[str] = by_name.get("webhook-id")
    timestamp, signatures = by_name.get("webhook-timestamp"), by_name.get("webhook-signature")
    service_signature = by_name.get("x-service-signature")
    if delivery_id and timestamp and signatures:
        _verify_standard(body, delivery_id, timestamp, signatures, secrets, tolerance)
    elif service_signature:
        _verify_service(body, service_signature, secrets)
        delivery_id = by_name.get("x-service-delivery")
    else:
        raise WebhookVerificationError("The request carries no webhook-signature and no X-Service-Signature header.")
    try:
        parsed: Any = json.loads(body)
    except ValueError as error:
        raise WebhookVerificationError("The body is not JSON.") from error
    if not isinstance(parsed, dict):
        raise WebhookVerificationError("The body is not a JSON object.")
    return decode(WebhookEvent, {**cast(Dict[str, Any], parsed), "id": delivery_id})
