from typing import Any, Dict, Optional

from ..._models import AlertmanagerResult
from ._base import AsyncResource


class AsyncIntegrations(AsyncResource):
    async def alertmanager(self, *, project_id: str, payload: Dict[str, Any], idempotency_key: Optional[str] = None) -> AlertmanagerResult:
        """Applies one Prometheus Alertmanager webhook notification (payload version 4) to the project:
        each firing alert opens or repeats the alert keyed by its fingerprint, each resolved one resolves it."""
        params = {"projectId": project_id}
        return await self._client.fetch(
            "POST", "/integrations/alertmanager", AlertmanagerResult, params=params, json=payload, idempotency_key=idempotency_key
        )
