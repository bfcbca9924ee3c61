# Generated from src/vigil/_async/resources/webhooks.py by scripts/generate_sync.py: do not edit.
from datetime import datetime
from typing import TYPE_CHECKING, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of, iso_timestamp
from ..._models import Delivery, DeliveryStatus, Recovery, Webhook
from ...webhooks import verify
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from .._client import Vigil


class WebhookDeliveries(Resource):
    def list(
        self,
        webhook_id: str,
        *,
        status: Optional[DeliveryStatus] = None,
        event: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Paginator[Delivery]:
        params = {"status": status, "event": event, "limit": limit, "cursor": cursor}
        return self._list(path("/webhooks/{}/deliveries", webhook_id), Delivery, params)

    def retrieve(self, webhook_id: str, delivery_id: str) -> Delivery:
        return self._client.fetch("GET", path("/webhooks/{}/deliveries/{}", webhook_id, delivery_id), Delivery)

    def retry(self, webhook_id: str, delivery_id: str, *, idempotency_key: Optional[str] = None) -> Delivery:
        """Sends the delivery again now (a manual attempt), whatever its status."""
        route = path("/webhooks/{}/deliveries/{}/retry", webhook_id, delivery_id)
        return self._client.fetch("POST", route, Delivery, idempotency_key=idempotency_key)


class Webhooks(Resource):
    verify = staticmethod(verify)

    def __init__(self, client: "Vigil") -> None:
        super().__init__(client)
        self.deliveries = WebhookDeliveries(client)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[Webhook]:
        return self._list("/webhooks", Webhook, {"limit": limit, "cursor": cursor})

    def create(self, *, name: str, url: str, events: List[str], idempotency_key: Optional[str] = None) -> Webhook:
        """Creates a webhook; the answer's `secret` is shown this once."""
        body = {"name": name, "url": url, "events": events}
        return self._client.fetch("POST", "/webhooks", Webhook, json=body, idempotency_key=idempotency_key)

    def retrieve(self, webhook_id: str) -> Webhook:
        return self._client.fetch("GET", path("/webhooks/{}", webhook_id), Webhook)

    def update(
        self,
        webhook_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        url: Union[str, NotGiven] = NOT_GIVEN,
        events: Union[List[str], NotGiven] = NOT_GIVEN,
        is_active: Union[bool, NotGiven] = NOT_GIVEN,
    ) -> Webhook:
        body = body_of({"name": name, "url": url, "events": events, "isActive": is_active})
        return self._client.fetch("PATCH", path("/webhooks/{}", webhook_id), Webhook, json=body)

    def delete(self, webhook_id: str) -> None:
        self._client.request("DELETE", path("/webhooks/{}", webhook_id))

    def rotate_secret(self, webhook_id: str, *, idempotency_key: Optional[str] = None) -> Webhook:
        """A new secret (in the answer's `secret`); deliveries carry both signatures for 24 hours."""
        route = path("/webhooks/{}/rotate-secret", webhook_id)
        return self._client.fetch("POST", route, Webhook, idempotency_key=idempotency_key)

    def recover(self, webhook_id: str, *, since: Union[datetime, str], idempotency_key: Optional[str] = None) -> Recovery:
        """Sends again every failed delivery created at or after `since` (at most 14 days ago)."""
        route = path("/webhooks/{}/recover", webhook_id)
        body = {"since": iso_timestamp(since)}
        return self._client.fetch("POST", route, Recovery, json=body, idempotency_key=idempotency_key)
