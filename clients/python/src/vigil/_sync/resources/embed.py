# Generated from src/vigil/_async/resources/embed.py by scripts/generate_sync.py: do not edit.
from typing import TYPE_CHECKING, List, Optional, Union

from ..._core import NOT_GIVEN, NotGiven, body_of
from ..._models import EmbedSettings, EmbedTheme, EmbedToken
from .._paginator import Paginator
from ._base import Resource, path

if TYPE_CHECKING:
    from .._client import Vigil


class EmbedTokens(Resource):
    def create(
        self,
        *,
        dashboard_id: str,
        expires_in_seconds: Union[int, NotGiven] = NOT_GIVEN,
        theme: Union[EmbedTheme, NotGiven] = NOT_GIVEN,
        idempotency_key: Optional[str] = None,
    ) -> EmbedToken:
        """Mints a token that lets a web page show one dashboard (600 s by default, at most 86400);
        the answer's `token` and `embed_url` are shown this once."""
        body = body_of({"dashboardId": dashboard_id, "expiresInSeconds": expires_in_seconds, "theme": theme})
        return self._client.fetch("POST", "/embed/tokens", EmbedToken, json=body, idempotency_key=idempotency_key)

    def list(
        self, *, dashboard_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> Paginator[EmbedToken]:
        return self._list("/embed/tokens", EmbedToken, {"dashboardId": dashboard_id, "limit": limit, "cursor": cursor})

    def delete(self, token_id: str) -> None:
        """Revokes the token: pages showing it stop within a second."""
        self._client.request("DELETE", path("/embed/tokens/{}", token_id))


class EmbedSettingsResource(Resource):
    def retrieve(self) -> EmbedSettings:
        return self._client.fetch("GET", "/embed/settings", EmbedSettings)

    def update(self, *, allowed_origins: List[str]) -> EmbedSettings:
        """Sets the origins allowed to embed dashboards (an empty list: any origin)."""
        return self._client.fetch("PATCH", "/embed/settings", EmbedSettings, json={"allowedOrigins": allowed_origins})


class Embed(Resource):
    def __init__(self, client: "Vigil") -> None:
        super().__init__(client)
        self.tokens = EmbedTokens(client)
        self.settings = EmbedSettingsResource(client)
