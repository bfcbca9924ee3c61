# Generated from src/vigil/_async/resources/chat.py by scripts/generate_sync.py: do not edit.
from typing import Optional

from ..._models import ChatAnswer
from ._base import Resource


class Chat(Resource):
    def ask(self, *, message: str, project_id: str, idempotency_key: Optional[str] = None) -> ChatAnswer:
        """Asks a question about a project's data; the answer is recorded in the history."""
        body = {"message": message, "projectId": project_id}
        return self._client.fetch("POST", "/chat", ChatAnswer, json=body, idempotency_key=idempotency_key)
