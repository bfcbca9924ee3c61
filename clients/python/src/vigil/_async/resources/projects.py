from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import Project
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncProjects(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncProjectsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncProjectsWithRawResponse(self)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **options: Unpack[RequestOptions]) -> AsyncPaginator[Project]:
        return self._list("/projects", Project, {"limit": limit, "cursor": cursor}, options)

    async def create(
        self,
        *,
        name: str,
        area: Union[str, None, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Project:
        body = body_of({"name": name, "area": area, "description": description})
        return await self._client.fetch("POST", "/projects", Project, json=body, idempotency_key=idempotency_key, options=options)

    async def retrieve(self, project_id: str, **options: Unpack[RequestOptions]) -> Project:
        return await self._client.fetch("GET", path("/projects/{}", project_id), Project, options=options)

    async def update(
        self,
        project_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        area: Union[str, None, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        **options: Unpack[RequestOptions],
    ) -> Project:
        body = body_of({"name": name, "area": area, "description": description})
        return await self._client.fetch("PATCH", path("/projects/{}", project_id), Project, json=body, options=options)

    async def delete(self, project_id: str, **options: Unpack[RequestOptions]) -> None:
        """Deletes the project and its alerts."""
        return await self._client.fetch_none("DELETE", path("/projects/{}", project_id), options=options)


class AsyncProjectsWithRawResponse:
    def __init__(self, projects: AsyncProjects) -> None:
        self.list = async_to_raw_response_wrapper(projects.list)
        self.create = async_to_raw_response_wrapper(projects.create)
        self.retrieve = async_to_raw_response_wrapper(projects.retrieve)
        self.update = async_to_raw_response_wrapper(projects.update)
        self.delete = async_to_raw_response_wrapper(projects.delete)
