# Generated from src/vigil/_async/resources/integrations.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Dict, Optional

from ..._core import RequestOptions
from ..._models import AlertmanagerResult
from .._response import to_raw_response_wrapper
from ._base import Resource

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Integrations(Resource):
    @cached_property
    def with_raw_response(self) -> IntegrationsWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return IntegrationsWithRawResponse(self)

    def alertmanager(
        self, *, project_id: str, payload: Dict[str, Any], idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]
    ) -> AlertmanagerResult:
        """Applies one Prometheus Alertmanager webhook notification (payload version 4) to the project:
        each firing alert opens or repeats the alert keyed by its fingerprint, each resolved one resolves it."""
        params = {"projectId": project_id}
        return self._client.fetch(
            "POST", "/integrations/alertmanager", AlertmanagerResult, params=params, json=payload, idempotency_key=idempotency_key, options=options
        )


class IntegrationsWithRawResponse:
    def __init__(self, integrations: Integrations) -> None:
        self.alertmanager = to_raw_response_wrapper(integrations.alertmanager)
