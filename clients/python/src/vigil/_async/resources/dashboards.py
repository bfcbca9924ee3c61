from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import Dashboard, DashboardData, WidgetInput, WidgetKind
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._client import AsyncVigil


class AsyncDashboardWidgets(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncDashboardWidgetsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncDashboardWidgetsWithRawResponse(self)

    async def add(
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
        return await self._client.fetch("POST", route, Dashboard, json=body, idempotency_key=idempotency_key, options=options)


class AsyncDashboards(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncDashboardsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncDashboardsWithRawResponse(self)

    def __init__(self, client: "AsyncVigil") -> None:
        super().__init__(client)
        self.widgets = AsyncDashboardWidgets(client)

    def list(
        self, *, project_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    , **options: Unpack[RequestOptions]) -> AsyncPaginator[Dashboard]:
        return self._list("/dashboards", Dashboard, {"projectId": project_id, "limit": limit, "cursor": cursor}, options)

    async def create(
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
        return await self._client.fetch("POST", "/dashboards", Dashboard, json=body, idempotency_key=idempotency_key, options=options)

    async def retrieve(self, dashboard_id: str, **options: Unpack[RequestOptions]) -> Dashboard:
        return await self._client.fetch("GET", path("/dashboards/{}", dashboard_id), Dashboard, options=options)

    async def update(
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
        return await self._client.fetch("PATCH", path("/dashboards/{}", dashboard_id), Dashboard, json=body, options=options)

    async def delete(self, dashboard_id: str, **options: Unpack[RequestOptions]) -> None:
        """Deletes the dashboard and every embed token for it."""
        return await self._client.fetch_none("DELETE", path("/dashboards/{}", dashboard_id), options=options)

    async def data(self, dashboard_id: str, **options: Unpack[RequestOptions]) -> DashboardData:
        """Every widget's current result; a widget whose query fails has its `error` set."""
        return await self._client.fetch("GET", path("/dashboards/{}/data", dashboard_id), DashboardData, options=options)


class AsyncDashboardWidgetsWithRawResponse:
    def __init__(self, dashboard_widgets: AsyncDashboardWidgets) -> None:
        self.add = async_to_raw_response_wrapper(dashboard_widgets.add)


class AsyncDashboardsWithRawResponse:
    def __init__(self, dashboards: AsyncDashboards) -> None:
        self.list = async_to_raw_response_wrapper(dashboards.list)
        self.create = async_to_raw_response_wrapper(dashboards.create)
        self.retrieve = async_to_raw_response_wrapper(dashboards.retrieve)
        self.update = async_to_raw_response_wrapper(dashboards.update)
        self.delete = async_to_raw_response_wrapper(dashboards.delete)
        self.data = async_to_raw_response_wrapper(dashboards.data)
        self.widgets = dashboards.widgets.with_raw_response
