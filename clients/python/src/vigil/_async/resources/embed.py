from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, RequestOptions, body_of
from ..._models import EmbedSettings, EmbedTheme, EmbedToken
from .._response import async_to_raw_response_wrapper
from .._paginator import AsyncPaginator
from ._base import AsyncResource, path

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._client import AsyncVigil


class AsyncEmbedTokens(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncEmbedTokensWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncEmbedTokensWithRawResponse(self)

    async def create(
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
        return await self._client.fetch("POST", "/embed/tokens", EmbedToken, json=body, idempotency_key=idempotency_key, options=options)

    def list(
        self, *, dashboard_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    , **options: Unpack[RequestOptions]) -> AsyncPaginator[EmbedToken]:
        return self._list("/embed/tokens", EmbedToken, {"dashboardId": dashboard_id, "limit": limit, "cursor": cursor}, options)

    async def delete(self, token_id: str, **options: Unpack[RequestOptions]) -> None:
        """Revokes the token: pages showing it stop within a second."""
        return await self._client.fetch_none("DELETE", path("/embed/tokens/{}", token_id), options=options)


class AsyncEmbedSettingsResource(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncEmbedSettingsResourceWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncEmbedSettingsResourceWithRawResponse(self)

    async def retrieve(self, **options: Unpack[RequestOptions]) -> EmbedSettings:
        return await self._client.fetch("GET", "/embed/settings", EmbedSettings, options=options)

    async def update(self, *, allowed_origins: List[str], **options: Unpack[RequestOptions]) -> EmbedSettings:
        """Sets the origins allowed to embed dashboards (an empty list: any origin)."""
        return await self._client.fetch("PATCH", "/embed/settings", EmbedSettings, json={"allowedOrigins": allowed_origins}, options=options)


class AsyncEmbed(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncEmbedWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncEmbedWithRawResponse(self)

    def __init__(self, client: "AsyncVigil") -> None:
        super().__init__(client)
        self.tokens = AsyncEmbedTokens(client)
        self.settings = AsyncEmbedSettingsResource(client)


class AsyncEmbedTokensWithRawResponse:
    def __init__(self, embed_tokens: AsyncEmbedTokens) -> None:
        self.create = async_to_raw_response_wrapper(embed_tokens.create)
        self.list = async_to_raw_response_wrapper(embed_tokens.list)
        self.delete = async_to_raw_response_wrapper(embed_tokens.delete)


class AsyncEmbedSettingsResourceWithRawResponse:
    def __init__(self, embed_settings_resource: AsyncEmbedSettingsResource) -> None:
        self.retrieve = async_to_raw_response_wrapper(embed_settings_resource.retrieve)
        self.update = async_to_raw_response_wrapper(embed_settings_resource.update)


class AsyncEmbedWithRawResponse:
    def __init__(self, embed: AsyncEmbed) -> None:
        self.tokens = embed.tokens.with_raw_response
        self.settings = embed.settings.with_raw_response
