# Generated from src/vigil/_async/resources/usage.py by scripts/generate_sync.py: do not edit.
from ..._models import Usage as UsageReport
from ._base import Resource


class Usage(Resource):
    def retrieve(self) -> UsageReport:
        """This calendar month's usage of the organization, day by day, and its plan's limits."""
        return self._client.fetch("GET", "/usage", UsageReport)
