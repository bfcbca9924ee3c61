from typing import Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of
from ..._models import Role, User, UserStatus
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path


class AsyncUsers(AsyncResource):
    def list(
        self,
        *,
        status: Optional[UserStatus] = None,
        role: Optional[Role] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> AsyncPaginator[User]:
        return self._list("/users", User, {"status": status, "role": role, "limit": limit, "cursor": cursor})

    async def invite(
        self,
        *,
        email: str,
        role: Role,
        name: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> User:
        """Invites a person: the user is `invited`, and `invite_url` is where they set a password."""
        body = body_of({"email": email, "role": role, "name": name})
        return await self._client.fetch("POST", "/users", User, json=body, idempotency_key=idempotency_key)

    async def retrieve(self, user_id: str) -> User:
        return await self._client.fetch("GET", path("/users/{}", user_id), User)

    async def update(
        self,
        user_id: str,
        *,
        role: Union[Role, NotGiven] = NOT_GIVEN,
        name: Union[str, None, NotGiven] = NOT_GIVEN,
    ) -> User:
        return await self._client.fetch("PATCH", path("/users/{}", user_id), User, json=body_of({"role": role, "name": name}))

    async def activate(self, user_id: str, *, idempotency_key: Optional[str] = None) -> User:
        return await self._client.fetch("POST", path("/users/{}/activate", user_id), User, idempotency_key=idempotency_key)

    async def deactivate(self, user_id: str, *, idempotency_key: Optional[str] = None) -> User:
        return await self._client.fetch("POST", path("/users/{}/deactivate", user_id), User, idempotency_key=idempotency_key)
