from ..._models import Usage as UsageReport
from ._base import AsyncResource


class AsyncUsage(AsyncResource):
    async def retrieve(self) -> UsageReport:
        """This calendar month's usage of the organization, day by day, and its plan's limits."""
        return await self._client.fetch("GET", "/usage", UsageReport)
