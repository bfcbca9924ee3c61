# Generated from src/vigil/_async/resources/users.py by scripts/generate_sync.py: do not edit.
from typing import Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of
from ..._models import Role, User, UserStatus
from .._paginator import Paginator
from ._base import Resource, path


class Users(Resource):
    def list(
        self,
        *,
        status: Optional[UserStatus] = None,
        role: Optional[Role] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Paginator[User]:
        return self._list("/users", User, {"status": status, "role": role, "limit": limit, "cursor": cursor})

    def invite(
        self,
        *,
        email: str,
        role: Role,
        name: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> User:
        """Invites a person: the user is `invited`, and `invite_url` is where they set a password."""
        body = body_of({"email": email, "role": role, "name": name})
        return self._client.fetch("POST", "/users", User, json=body, idempotency_key=idempotency_key)

    def retrieve(self, user_id: str) -> User:
        return self._client.fetch("GET", path("/users/{}", user_id), User)

    def update(
        self,
        user_id: str,
        *,
        role: Union[Role, NotGiven] = NOT_GIVEN,
        name: Union[str, None, NotGiven] = NOT_GIVEN,
    ) -> User:
        return self._client.fetch("PATCH", path("/users/{}", user_id), User, json=body_of({"role": role, "name": name}))

    def activate(self, user_id: str, *, idempotency_key: Optional[str] = None) -> User:
        return self._client.fetch("POST", path("/users/{}/activate", user_id), User, idempotency_key=idempotency_key)

    def deactivate(self, user_id: str, *, idempotency_key: Optional[str] = None) -> User:
        return self._client.fetch("POST", path("/users/{}/deactivate", user_id), User, idempotency_key=idempotency_key)
