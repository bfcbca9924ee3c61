# Generated from src/vigil/_async/resources/integrations.py by scripts/generate_sync.py: do not edit.
from typing import Any, Dict, Optional

from ..._models import AlertmanagerResult
from ._base import Resource


class Integrations(Resource):
    def alertmanager(self, *, project_id: str, payload: Dict[str, Any], idempotency_key: Optional[str] = None) -> AlertmanagerResult:
        """Applies one Prometheus Alertmanager webhook notification (payload version 4) to the project:
        each firing alert opens or repeats the alert keyed by its fingerprint, each resolved one resolves it."""
        params = {"projectId": project_id}
        return self._client.fetch(
            "POST", "/integrations/alertmanager", AlertmanagerResult, params=params, json=payload, idempotency_key=idempotency_key
        )
