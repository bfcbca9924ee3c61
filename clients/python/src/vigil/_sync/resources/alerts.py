# Generated from src/vigil/_async/resources/alerts.py by scripts/generate_sync.py: do not edit.
from typing import List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of, query_of
from ..._decode import decode
from ..._models import Alert, AlertOpenCounts, AlertStatus, AlertTimelineEntry, Severity
from .._paginator import Paginator
from ._base import Resource, path

OptionalText = Union[str, None, NotGiven]


class Alerts(Resource):
    def list(
        self,
        *,
        project_id: Optional[str] = None,
        status: Optional[AlertStatus] = None,
        severity: Optional[Severity] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Paginator[Alert]:
        params = {"projectId": project_id, "status": status, "severity": severity, "limit": limit, "cursor": cursor}
        return self._list("/alerts", Alert, params)

    def create(
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
        return self._client.fetch("POST", "/alerts", Alert, json=body, idempotency_key=idempotency_key)

    def retrieve(self, alert_id: str) -> Alert:
        return self._client.fetch("GET", path("/alerts/{}", alert_id), Alert)

    def update(
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
        return self._client.fetch("PATCH", path("/alerts/{}", alert_id), Alert, json=body)

    def delete(self, alert_id: str) -> None:
        self._client.request("DELETE", path("/alerts/{}", alert_id))

    def acknowledge(self, alert_id: str, *, idempotency_key: Optional[str] = None) -> Alert:
        return self._client.fetch("POST", path("/alerts/{}/acknowledge", alert_id), Alert, idempotency_key=idempotency_key)

    def assign(self, alert_id: str, *, user_id: str, idempotency_key: Optional[str] = None) -> Alert:
        """Assigns the alert to an active user of the organization."""
        route = path("/alerts/{}/assign", alert_id)
        return self._client.fetch("POST", route, Alert, json={"userId": user_id}, idempotency_key=idempotency_key)

    def resolve(self, alert_id: str, *, idempotency_key: Optional[str] = None) -> Alert:
        return self._client.fetch("POST", path("/alerts/{}/resolve", alert_id), Alert, idempotency_key=idempotency_key)

    def timeline(self, alert_id: str) -> List[AlertTimelineEntry]:
        """What happened to the alert, oldest first: each recorded event with when and who."""
        response = self._client.request("GET", path("/alerts/{}/timeline", alert_id))
        return [decode(AlertTimelineEntry, entry) for entry in response.json()["data"]]

    def open_counts(self, *, project_id: Optional[str] = None) -> AlertOpenCounts:
        """Open alerts (active or acknowledged) per severity, optionally of one project."""
        return self._client.fetch("GET", "/alerts/open-counts", AlertOpenCounts, params=query_of({"projectId": project_id}))
