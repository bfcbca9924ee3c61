# Generated from src/vigil/_async/resources/projects.py by scripts/generate_sync.py: do not edit.
from typing import Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of
from ..._models import Project
from .._paginator import Paginator
from ._base import Resource, path


class Projects(Resource):
    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paginator[Project]:
        return self._list("/projects", Project, {"limit": limit, "cursor": cursor})

    def create(
        self,
        *,
        name: str,
        area: Union[str, None, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> Project:
        body = body_of({"name": name, "area": area, "description": description})
        return self._client.fetch("POST", "/projects", Project, json=body, idempotency_key=idempotency_key)

    def retrieve(self, project_id: str) -> Project:
        return self._client.fetch("GET", path("/projects/{}", project_id), Project)

    def update(
        self,
        project_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        area: Union[str, None, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
    ) -> Project:
        body = body_of({"name": name, "area": area, "description": description})
        return self._client.fetch("PATCH", path("/projects/{}", project_id), Project, json=body)

    def delete(self, project_id: str) -> None:
        """Deletes the project and its alerts."""
        self._client.request("DELETE", path("/projects/{}", project_id))
