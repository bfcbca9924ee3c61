from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, List, Optional, Union

import httpx

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of, query_of
from ..._decode import decode
from ..._models import Alert, AlertOpenCounts, AlertStatus, AlertTimelineEntry, Severity
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

OptionalText = Union[str, None, NotGiven]

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncAlerts(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncAlertsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncAlertsWithRawResponse(self)

    def list(
        self,
        *,
        project_id: Optional[str] = None,
        status: Optional[AlertStatus] = None,
        severity: Optional[Severity] = None,
        dedup_key: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> AsyncPaginator[Alert]:
        params = {"projectId": project_id, "status": status, "severity": severity, "dedupKey": dedup_key, "limit": limit, "cursor": cursor}
        return self._list("/alerts", Alert, params, options)

    async def create(
        self,
        *,
        project_id: str,
        title: str,
        severity: Severity,
        description: OptionalText = NOT_GIVEN,
        area: OptionalText = NOT_GIVEN,
        value: OptionalText = NOT_GIVEN,
        threshold: OptionalText = NOT_GIVEN,
        dedup_key: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Alert:
        """Creates an alert; with a `dedup_key` that an active or acknowledged alert of the project
        already has, counts a repeat of that one instead (its `occurrences` + 1) and returns it."""
        body = body_of(
            {
                "projectId": project_id,
                "title": title,
                "severity": severity,
                "description": description,
                "area": area,
                "value": value,
                "threshold": threshold,
                "dedupKey": dedup_key,
            }
        )
        return await self._client.fetch("POST", "/alerts", Alert, json=body, idempotency_key=idempotency_key, options=options)

    async def retrieve(self, alert_id: str, **options: Unpack[RequestOptions]) -> Alert:
        return await self._client.fetch("GET", path("/alerts/{}", alert_id), Alert, options=options)

    async def update(
        self,
        alert_id: str,
        *,
        title: Union[str, NotGiven] = NOT_GIVEN,
        severity: Union[Severity, NotGiven] = NOT_GIVEN,
        description: OptionalText = NOT_GIVEN,
        area: OptionalText = NOT_GIVEN,
        value: OptionalText = NOT_GIVEN,
        threshold: OptionalText = NOT_GIVEN,
        **options: Unpack[RequestOptions],
    ) -> Alert:
        body = body_of(
            {"title": title, "severity": severity, "description": description, "area": area, "value": value, "threshold": threshold}
        )
        return await self._client.fetch("PATCH", path("/alerts/{}", alert_id), Alert, json=body, options=options)

    async def delete(self, alert_id: str, **options: Unpack[RequestOptions]) -> None:
        return await self._client.fetch_none("DELETE", path("/alerts/{}", alert_id), options=options)

    async def acknowledge(self, alert_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Alert:
        return await self._client.fetch("POST", path("/alerts/{}/acknowledge", alert_id), Alert, idempotency_key=idempotency_key, options=options)

    async def assign(self, alert_id: str, *, user_id: str, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Alert:
        """Assigns the alert to an active user of the organization."""
        route = path("/alerts/{}/assign", alert_id)
        return await self._client.fetch("POST", route, Alert, json={"userId": user_id}, idempotency_key=idempotency_key, options=options)

    async def resolve(self, alert_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> Alert:
        return await self._client.fetch("POST", path("/alerts/{}/resolve", alert_id), Alert, idempotency_key=idempotency_key, options=options)

    async def timeline(self, alert_id: str, **options: Unpack[RequestOptions]) -> List[AlertTimelineEntry]:
        """What happened to the alert, oldest first: each recorded event with when and who."""

        async def parse(response: httpx.Response) -> List[AlertTimelineEntry]:
            return [decode(AlertTimelineEntry, entry) for entry in response.json()["data"]]

        return await self._client.fetch_with("GET", path("/alerts/{}/timeline", alert_id), parse, options=options)

    async def open_counts(self, *, project_id: Optional[str] = None, **options: Unpack[RequestOptions]) -> AlertOpenCounts:
        """Open alerts (active or acknowledged) per severity, optionally of one project."""
        return await self._client.fetch("GET", "/alerts/open-counts", AlertOpenCounts, params=query_of({"projectId": project_id}), options=options)


class AsyncAlertsWithRawResponse:
    def __init__(self, alerts: AsyncAlerts) -> None:
        self.list = async_to_raw_response_wrapper(alerts.list)
        self.create = async_to_raw_response_wrapper(alerts.create)
        self.retrieve = async_to_raw_response_wrapper(alerts.retrieve)
        self.update = async_to_raw_response_wrapper(alerts.update)
        self.delete = async_to_raw_response_wrapper(alerts.delete)
        self.acknowledge = async_to_raw_response_wrapper(alerts.acknowledge)
        self.assign = async_to_raw_response_wrapper(alerts.assign)
        self.resolve = async_to_raw_response_wrapper(alerts.resolve)
        self.timeline = async_to_raw_response_wrapper(alerts.timeline)
        self.open_counts = async_to_raw_response_wrapper(alerts.open_counts)
