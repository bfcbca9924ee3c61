# Generated from src/vigil/_async/resources/usage.py by scripts/generate_sync.py: do not edit.
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ..._core import RequestOptions
from ..._models import Usage as UsageReport
from .._response import to_raw_response_wrapper
from ._base import Resource

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Usage(Resource):
    @cached_property
    def with_raw_response(self) -> UsageWithRawResponse:
        """Each method, answering the HTTP response (`status_code`, `headers`, `parse()`) instead."""
        return UsageWithRawResponse(self)

    def retrieve(self, **options: Unpack[RequestOptions]) -> UsageReport:
        """This calendar month's usage of the organization, day by day, and its plan's limits."""
        return self._client.fetch("GET", "/usage", UsageReport, options=options)


class UsageWithRawResponse:
    def __init__(self, usage: Usage) -> None:
        self.retrieve = to_raw_response_wrapper(usage.retrieve)
