# Generated from src/vigil/_async/resources/users.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import Role, User, UserStatus
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Users(Resource):
    @cached_property
    def with_raw_response(self) -> UsersWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return UsersWithRawResponse(self)

    def list(
        self,
        *,
        status: Optional[UserStatus] = None,
        role: Optional[Role] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> Paginator[User]:
        return self._list("/users", User, {"status": status, "role": role, "limit": limit, "cursor": cursor}, options)

    def invite(
        self,
        *,
        email: str,
        role: Role,
        name: Union[str, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> User:
        """Invites a person: the user is `invited`, and `invite_url` is where they set a password."""
        body = body_of({"email": email, "role": role, "name": name})
        return self._client.fetch("POST", "/users", User, json=body, idempotency_key=idempotency_key, options=options)

    def retrieve(self, user_id: str, **options: Unpack[RequestOptions]) -> User:
        return self._client.fetch("GET", path("/users/{}", user_id), User, options=options)

    def update(
        self,
        user_id: str,
        *,
        role: Union[Role, NotGiven] = NOT_GIVEN,
        name: Union[str, None, NotGiven] = NOT_GIVEN,
        **options: Unpack[RequestOptions],
    ) -> User:
        return self._client.fetch("PATCH", path("/users/{}", user_id), User, json=body_of({"role": role, "name": name}), options=options)

    def activate(self, user_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> User:
        return self._client.fetch("POST", path("/users/{}/activate", user_id), User, idempotency_key=idempotency_key, options=options)

    def deactivate(self, user_id: str, *, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> User:
        return self._client.fetch("POST", path("/users/{}/deactivate", user_id), User, idempotency_key=idempotency_key, options=options)


class UsersWithRawResponse:
    def __init__(self, users: Users) -> None:
        self.list = to_raw_response_wrapper(users.list)
        self.invite = to_raw_response_wrapper(users.invite)
        self.retrieve = to_raw_response_wrapper(users.retrieve)
        self.update = to_raw_response_wrapper(users.update)
        self.activate = to_raw_response_wrapper(users.activate)
        self.deactivate = to_raw_response_wrapper(users.deactivate)
