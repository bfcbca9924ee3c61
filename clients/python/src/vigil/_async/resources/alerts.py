from typing import List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of, query_of
from ..._decode import decode
from ..._models import Alert, AlertOpenCounts, AlertStatus, AlertTimelineEntry, Severity
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

OptionalText = Union[str, None, NotGiven]


class AsyncAlerts(AsyncResource):
    def list(
        self,
        *,
        project_id: Optional[str] = None,
        status: Optional[AlertStatus] = None,
        severity: Optional[Severity] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> AsyncPaginator[Alert]:
        params = {"projectId": project_id, "status": status, "severity": severity, "limit": limit, "cursor": cursor}
        return self._list("/alerts", Alert, params)

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
        idempotency_key: Optional[str] = None,
    ) -> Alert:
        body = body_of(
            {
                "projectId": project_id,
                "title": title,
                "severity": severity,
                "description": description,
                "area": area,
                "value": value,
                "threshold": threshold,
            }
        )
        return await self._client.fetch("POST", "/alerts", Alert, json=body, idempotency_key=idempotency_key)

    async def retrieve(self, alert_id: str) -> Alert:
        return await self._client.fetch("GET", path("/alerts/{}", alert_id), Alert)

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
    ) -> Alert:
        body = body_of(
            {"title": title, "severity": severity, "description": description, "area": area, "value": value, "threshold": threshold}
        )
        return await self._client.fetch("PATCH", path("/alerts/{}", alert_id), Alert, json=body)

    async def delete(self, alert_id: str) -> None:
        await self._client.request("DELETE", path("/alerts/{}", alert_id))

    async def acknowledge(self, alert_id: str, *, idempotency_key: Optional[str] = None) -> Alert:
        return await self._client.fetch("POST", path("/alerts/{}/acknowledge", alert_id), Alert, idempotency_key=idempotency_key)

    async def assign(self, alert_id: str, *, user_id: str, idempotency_key: Optional[str] = None) -> Alert:
        """Assigns the alert to an active user of the organization."""
        route = path("/alerts/{}/assign", alert_id)
        return await self._client.fetch("POST", route, Alert, json={"userId": user_id}, idempotency_key=idempotency_key)

    async def resolve(self, alert_id: str, *, idempotency_key: Optional[str] = None) -> Alert:
        return await self._client.fetch("POST", path("/alerts/{}/resolve", alert_id), Alert, idempotency_key=idempotency_key)

    async def timeline(self, alert_id: str) -> List[AlertTimelineEntry]:
        """What happened to the alert, oldest first: each recorded event with when and who."""
        response = await self._client.request("GET", path("/alerts/{}/timeline", alert_id))
        return [decode(AlertTimelineEntry, entry) for entry in response.json()["data"]]

    async def open_counts(self, *, project_id: Optional[str] = None) -> AlertOpenCounts:
        """Open alerts (active or acknowledged) per severity, optionally of one project."""
        return await self._client.fetch("GET", "/alerts/open-counts", AlertOpenCounts, params=query_of({"projectId": project_id}))
