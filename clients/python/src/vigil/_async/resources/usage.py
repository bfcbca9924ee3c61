from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ..._core import RequestOptions
from ..._models import Usage as UsageReport
from .._response import async_to_raw_response_wrapper
from ._base import AsyncResource

if TYPE_CHECKING:
    from typing_extensions import Unpack


class AsyncUsage(AsyncResource):
    @cached_property
    def with_raw_response(self) -> AsyncUsageWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return AsyncUsageWithRawResponse(self)

    async def retrieve(self, **options: Unpack[RequestOptions]) -> UsageReport:
        """This calendar month's usage of the organization, day by day, and its plan's limits."""
        return await self._client.fetch("GET", "/usage", UsageReport, options=options)


class AsyncUsageWithRawResponse:
    def __init__(self, usage: AsyncUsage) -> None:
        self.retrieve = async_to_raw_response_wrapper(usage.retrieve)
