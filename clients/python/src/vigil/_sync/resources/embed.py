# Generated from src/vigil/_async/resources/embed.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import EmbedSettings, EmbedTheme, EmbedToken
from .._response import to_raw_response_wrapper
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._client import Vigil


class EmbedTokens(Resource):
    @cached_property
    def with_raw_response(self) -> EmbedTokensWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return EmbedTokensWithRawResponse(self)

    def create(
        self,
        *,
        dashboard_id: str,
        expires_in_seconds: Union[int, NotGiven] = NOT_GIVEN,
        theme: Union[EmbedTheme, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> EmbedToken:
        """Mints a token that lets a web page show one dashboard (600 s by default, at most 86400);
        the answer's `token` and `embed_url` are shown this once."""
        body = body_of({"dashboardId": dashboard_id, "expiresInSeconds": expires_in_seconds, "theme": theme})
        return self._client.fetch("POST", "/embed/tokens", EmbedToken, json=body, idempotency_key=idempotency_key, options=options)

    def list(
        self, *, dashboard_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    , **options: Unpack[RequestOptions]) -> Paginator[EmbedToken]:
        return self._list("/embed/tokens", EmbedToken, {"dashboardId": dashboard_id, "limit": limit, "cursor": cursor}, options)

    def delete(self, token_id: str, **options: Unpack[RequestOptions]) -> None:
        """Revokes the token: pages showing it stop within a second."""
        return self._client.fetch_none("DELETE", path("/embed/tokens/{}", token_id), options=options)


class EmbedSettingsResource(Resource):
    @cached_property
    def with_raw_response(self) -> EmbedSettingsResourceWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return EmbedSettingsResourceWithRawResponse(self)

    def retrieve(self, **options: Unpack[RequestOptions]) -> EmbedSettings:
        return self._client.fetch("GET", "/embed/settings", EmbedSettings, options=options)

    def update(self, *, allowed_origins: List[str], **options: Unpack[RequestOptions]) -> EmbedSettings:
        """Sets the origins allowed to embed dashboards (an empty list: any origin)."""
        return self._client.fetch("PATCH", "/embed/settings", EmbedSettings, json={"allowedOrigins": allowed_origins}, options=options)


class Embed(Resource):
    @cached_property
    def with_raw_response(self) -> EmbedWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return EmbedWithRawResponse(self)

    def __init__(self, client: "Vigil") -> None:
        super().__init__(client)
        self.tokens = EmbedTokens(client)
        self.settings = EmbedSettingsResource(client)


class EmbedTokensWithRawResponse:
    def __init__(self, embed_tokens: EmbedTokens) -> None:
        self.create = to_raw_response_wrapper(embed_tokens.create)
        self.list = to_raw_response_wrapper(embed_tokens.list)
        self.delete = to_raw_response_wrapper(embed_tokens.delete)


class EmbedSettingsResourceWithRawResponse:
    def __init__(self, embed_settings_resource: EmbedSettingsResource) -> None:
        self.retrieve = to_raw_response_wrapper(embed_settings_resource.retrieve)
        self.update = to_raw_response_wrapper(embed_settings_resource.update)


class EmbedWithRawResponse:
    def __init__(self, embed: Embed) -> None:
        self.tokens = embed.tokens.with_raw_response
        self.settings = embed.settings.with_raw_response
