from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

from ..._core import RequestOptions
from ..._models import ChatAnswer
from .._response import async_to_raw_response_wrapper
from ._base import AsyncResource

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncChat(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncChatWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncChatWithRawResponse(self)

    async def ask(self, *, message: str, project_id: str, idempotency_key: Optional[str] = None, **options: Unpack[RequestOptions]) -> ChatAnswer:
        """Asks a question about a project's data; the answer is recorded in the history."""
        body = {"message": message, "projectId": project_id}
        return await self._client.fetch("POST", "/chat", ChatAnswer, json=body, idempotency_key=idempotency_key, options=options)


class AsyncChatWithRawResponse:
    def __init__(self, chat: AsyncChat) -> None:
        self.ask = async_to_raw_response_wrapper(chat.ask)
