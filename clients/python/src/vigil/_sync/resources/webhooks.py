# Generated from src/vigil/_async/resources/webhooks.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from datetime import datetime
from typing import TYPE_CHECKING, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of, iso_timestamp
from ..._models import Delivery, DeliveryStatus, Recovery, Webhook
from ...webhooks import verify
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._client import Vigil


class WebhookDeliveries(Resource):
    @cached_property
    def with_raw_response(self) -> WebhookDeliveriesWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return WebhookDeliveriesWithRawResponse(self)

    def list(
        self,
        webhook_id: str,
        *,
        status: Optional[DeliveryStatus] = None,
        event: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Paginator[Delivery]:
        params = {"status": status, "event": event, "limit": limit, "cursor": cursor}
        return self._list(path("/webhooks/{}/deliveries", webhook_id), Delivery, params, options)

    def retrieve(self, webhook_id: str, delivery_id: str, **options: Unpack[RequestOptions]) -> Delivery:
        return self._client.fetch("GET", path("/webhooks/{}/deliveries/{}", webhook_id, delivery_id), Delivery, options=options)

    def retry(self, webhook_id: str, delivery_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Delivery:
        """Sends the delivery again now (a manual attempt), whatever its status."""
        route = path("/webhooks/{}/deliveries/{}/retry", webhook_id, delivery_id)
        return self._client.fetch("POST", route, Delivery, idempotency_key=idempotency_key, options=options)


class Webhooks(Resource):
    @cached_property
    def with_raw_response(self) -> WebhooksWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return WebhooksWithRawResponse(self)

    verify = staticmethod(verify)

    def __init__(self, client: "Vigil") -> None:
        super().__init__(client)
        self.deliveries = WebhookDeliveries(client)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> Paginator[Webhook]:
        return self._list("/webhooks", Webhook, {"limit": limit, "cursor": cursor}, options)

    def create(self, *, name: str, url: str, events: List[str], idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Webhook:
        """Creates a webhook; the answer's `secret` is shown this once."""
        body = {"name": name, "url": url, "events": events}
        return self._client.fetch("POST", "/webhooks", Webhook, json=body, idempotency_key=idempotency_key, options=options)

    def retrieve(self, webhook_id: str, **options: Unpack[RequestOptions]) -> Webhook:
        return self._client.fetch("GET", path("/webhooks/{}", webhook_id), Webhook, options=options)

    def update(
        self,
        webhook_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        url: Union[str, NotGiven] = NOT_GIVEN,
        events: Union[List[str], NotGiven] = NOT_GIVEN,
        is_active: Union[bool, NotGiven] = NOT_GIVEN,
        **options: Unpack[RequestOptions],
    ) -> Webhook:
        body = body_of({"name": name, "url": url, "events": events, "isActive": is_active})
        return self._client.fetch("PATCH", path("/webhooks/{}", webhook_id), Webhook, json=body, options=options)

    def delete(self, webhook_id: str, **options: Unpack[RequestOptions]) -> None:
        return self._client.fetch_none("DELETE", path("/webhooks/{}", webhook_id), options=options)

    def rotate_secret(self, webhook_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Webhook:
        """A new secret (in the answer's `secret`); deliveries carry both signatures for 24 hours."""
        route = path("/webhooks/{}/rotate-secret", webhook_id)
        return self._client.fetch("POST", route, Webhook, idempotency_key=idempotency_key, options=options)

    def recover(self, webhook_id: str, *, since: Union[datetime, str], idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Recovery:
        """Sends again every failed delivery created at or after `since` (at most 14 days ago)."""
        route = path("/webhooks/{}/recover", webhook_id)
        body = {"since": iso_timestamp(since)}
        return self._client.fetch("POST", route, Recovery, json=body, idempotency_key=idempotency_key, options=options)


class WebhookDeliveriesWithRawResponse:
    def __init__(self, webhook_deliveries: WebhookDeliveries) -> None:
        self.list = to_raw_response_wrapper(webhook_deliveries.list)
        self.retrieve = to_raw_response_wrapper(webhook_deliveries.retrieve)
        self.retry = to_raw_response_wrapper(webhook_deliveries.retry)


class WebhooksWithRawResponse:
    def __init__(self, webhooks: Webhooks) -> None:
        self.list = to_raw_response_wrapper(webhooks.list)
        self.create = to_raw_response_wrapper(webhooks.create)
        self.retrieve = to_raw_response_wrapper(webhooks.retrieve)
        self.update = to_raw_response_wrapper(webhooks.update)
        self.delete = to_raw_response_wrapper(webhooks.delete)
        self.rotate_secret = to_raw_response_wrapper(webhooks.rotate_secret)
        self.recover = to_raw_response_wrapper(webhooks.recover)
        self.deliveries = webhooks.deliveries.with_raw_response
