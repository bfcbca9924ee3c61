from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Dict, Optional

from ..._core import RequestOptions
from ..._models import AlertmanagerResult
from .._response import async_to_raw_response_wrapper
from ._base import AsyncResource

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncIntegrations(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncIntegrationsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncIntegrationsWithRawResponse(self)

    async def alertmanager(
        self, *, project_id: str, payload: Dict[str, Any], idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]
    ) -> AlertmanagerResult:
        """Applies one Prometheus Alertmanager webhook notification (payload version 4) to the project:
        each firing alert opens or repeats the alert keyed by its fingerprint, each resolved one resolves it."""
        params = {"projectId": project_id}
        return await self._client.fetch(
            "POST", "/integrations/alertmanager", AlertmanagerResult, params=params, json=payload, idempotency_key=idempotency_key, options=options
        )


class AsyncIntegrationsWithRawResponse:
    def __init__(self, integrations: AsyncIntegrations) -> None:
        self.alertmanager = async_to_raw_response_wrapper(integrations.alertmanager)
