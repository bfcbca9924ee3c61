# Generated from src/vigil/_async/resources/chat.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

from ..._core import RequestOptions
from ..._models import ChatAnswer
from .._response import to_raw_response_wrapper
from ._base import Resource

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Chat(Resource):
    @cached_property
    def with_raw_response(self) -> ChatWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return ChatWithRawResponse(self)

    def ask(self, *, message: str, project_id: str, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> ChatAnswer:
        """Asks a question about a project's data; the answer is recorded in the history."""
        body = {"message": message, "projectId": project_id}
        return self._client.fetch("POST", "/chat", ChatAnswer, json=body, idempotency_key=idempotency_key, options=options)


class ChatWithRawResponse:
    def __init__(self, chat: Chat) -> None:
        self.ask = to_raw_response_wrapper(chat.ask)
