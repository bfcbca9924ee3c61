# Generated from src/vigil/_async/resources/dashboards.py by scripts/generate_sync.py: do not edit.
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of
from ..._models import Dashboard, DashboardData, WidgetInput, WidgetKind
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from .._client import Vigil


class DashboardWidgets(Resource):
    def add(
        self,
        dashboard_id: str,
        *,
        title: Union[str, NotGiven] = NOT_GIVEN,
        kind: Union[WidgetKind, NotGiven] = NOT_GIVEN,
        query: Union[Dict[str, Any], NotGiven] = NOT_GIVEN,
        from_query_id: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> Dashboard:
        """Appends a widget (`title`, `kind`, `query`), or one made from a chat answer's SQL
        (`from_query_id`, with `title` and `kind` optional); returns the whole dashboard."""
        body = body_of({"title": title, "kind": kind, "query": query, "fromQueryId": from_query_id})
        route = path("/dashboards/{}/widgets", dashboard_id)
        return self._client.fetch("POST", route, Dashboard, json=body, idempotency_key=idempotency_key)


class Dashboards(Resource):
    def __init__(self, client: "Vigil") -> None:
        super().__init__(client)
        self.widgets = DashboardWidgets(client)

    def list(
        self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> Paginator[Dashboard]:
        return self._list("/dashboards", Dashboard, {"projectId": project_id, "limit": limit, "cursor": cursor})

    def create(
        self,
        *,
        project_id: str,
        name: str,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        widgets: Union[List[WidgetInput], NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> Dashboard:
        body = body_of({"projectId": project_id, "name": name, "description": description, "widgets": widgets})
        return self._client.fetch("POST", "/dashboards", Dashboard, json=body, idempotency_key=idempotency_key)

    def retrieve(self, dashboard_id: str) -> Dashboard:
        return self._client.fetch("GET", path("/dashboards/{}", dashboard_id), Dashboard)

    def update(
        self,
        dashboard_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        widgets: Union[List[WidgetInput], NotGiven] = NOT_GIVEN,
    ) -> Dashboard:
        """`widgets`, when given, replaces every widget, in that order."""
        body = body_of({"name": name, "description": description, "widgets": widgets})
        return self._client.fetch("PATCH", path("/dashboards/{}", dashboard_id), Dashboard, json=body)

    def delete(self, dashboard_id: str) -> None:
        """Deletes the dashboard and every embed token for it."""
        self._client.request("DELETE", path("/dashboards/{}", dashboard_id))

    def data(self, dashboard_id: str) -> DashboardData:
        """Every widget's current result; a widget whose query fails has its `error` set."""
        return self._client.fetch("GET", path("/dashboards/{}/data", dashboard_id), DashboardData)
