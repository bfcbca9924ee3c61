from typing import Optional

from ..._models import ChatAnswer
from ._base import AsyncResource


class AsyncChat(AsyncResource):
    async def ask(self, *, message: str, project_id: str, idempotency_key: Optional[str] = None) -> ChatAnswer:
        """Asks a question about a project's data; the answer is recorded in the history."""
        body = {"message": message, "projectId": project_id}
        return await self._client.fetch("POST", "/chat", ChatAnswer, json=body, idempotency_key=idempotency_key)
