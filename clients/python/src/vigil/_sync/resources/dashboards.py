# Generated from src/vigil/_async/resources/dashboards.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import Dashboard, DashboardData, WidgetInput, WidgetKind
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._client import Vigil


class DashboardWidgets(Resource):
    @cached_property
    def with_raw_response(self) -> DashboardWidgetsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return DashboardWidgetsWithRawResponse(self)

    def add(
        self,
        dashboard_id: str,
        *,
        title: Union[str, NotGiven] = NOT_GIVEN,
        kind: Union[WidgetKind, NotGiven] = NOT_GIVEN,
        query: Union[Dict[str, Any], NotGiven] = NOT_GIVEN,
        from_query_id: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Dashboard:
        """Appends a widget (`title`, `kind`, `query`), or one made from a chat answer's SQL
        (`from_query_id`, with `title` and `kind` optional); returns the whole dashboard."""
        body = body_of({"title": title, "kind": kind, "query": query, "fromQueryId": from_query_id})
        route = path("/dashboards/{}/widgets", dashboard_id)
        return self._client.fetch("POST", route, Dashboard, json=body, idempotency_key=idempotency_key, options=options)


class Dashboards(Resource):
    @cached_property
    def with_raw_response(self) -> DashboardsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return DashboardsWithRawResponse(self)

    def __init__(self, client: "Vigil") -> None:
        super().__init__(client)
        self.widgets = DashboardWidgets(client)

    def list(
        self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    , **options: Unpack[RequestOptions]) -> Paginator[Dashboard]:
        return self._list("/dashboards", Dashboard, {"projectId": project_id, "limit": limit, "cursor": cursor}, options)

    def create(
        self,
        *,
        project_id: str,
        name: str,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        widgets: Union[List[WidgetInput], NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Dashboard:
        body = body_of({"projectId": project_id, "name": name, "description": description, "widgets": widgets})
        return self._client.fetch("POST", "/dashboards", Dashboard, json=body, idempotency_key=idempotency_key, options=options)

    def retrieve(self, dashboard_id: str, **options: Unpack[RequestOptions]) -> Dashboard:
        return self._client.fetch("GET", path("/dashboards/{}", dashboard_id), Dashboard, options=options)

    def update(
        self,
        dashboard_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        widgets: Union[List[WidgetInput], NotGiven] = NOT_GIVEN,
        **options: Unpack[RequestOptions],
    ) -> Dashboard:
        """`widgets`, when given, replaces every widget, in that order."""
        body = body_of({"name": name, "description": description, "widgets": widgets})
        return self._client.fetch("PATCH", path("/dashboards/{}", dashboard_id), Dashboard, json=body, options=options)

    def delete(self, dashboard_id: str, **options: Unpack[RequestOptions]) -> None:
        """Deletes the dashboard and every embed token for it."""
        return self._client.fetch_none("DELETE", path("/dashboards/{}", dashboard_id), options=options)

    def data(self, dashboard_id: str, **options: Unpack[RequestOptions]) -> DashboardData:
        """Every widget's current result; a widget whose query fails has its `error` set."""
        return self._client.fetch("GET", path("/dashboards/{}/data", dashboard_id), DashboardData, options=options)


class DashboardWidgetsWithRawResponse:
    def __init__(self, dashboard_widgets: DashboardWidgets) -> None:
        self.add = to_raw_response_wrapper(dashboard_widgets.add)


class DashboardsWithRawResponse:
    def __init__(self, dashboards: Dashboards) -> None:
        self.list = to_raw_response_wrapper(dashboards.list)
        self.create = to_raw_response_wrapper(dashboards.create)
        self.retrieve = to_raw_response_wrapper(dashboards.retrieve)
        self.update = to_raw_response_wrapper(dashboards.update)
        self.delete = to_raw_response_wrapper(dashboards.delete)
        self.data = to_raw_response_wrapper(dashboards.data)
        self.widgets = dashboards.widgets.with_raw_response
