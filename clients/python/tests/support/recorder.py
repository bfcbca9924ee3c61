"""What went over the wire: every request a client sent and every status it got, recorded by
httpx event hooks on the `http_client` the test hands to the client."""

from dataclasses import dataclass, field
from typing import List, Optional

import httpx


@dataclass
class Exchange:
    method: str
    path: str
    idempotency_key: Optional[str]
    status: Optional[int] = None


@dataclass
class Recorder:
    exchanges: List[Exchange] = field(default_factory=lambda: [])

    def on_request(self, request: httpx.Request) -> None:
        self.exchanges.append(Exchange(request.method, request.url.path, request.headers.get("idempotency-key")))

    def on_response(self, response: httpx.Response) -> None:
        self.exchanges[-1].status = response.status_code

    async def on_request_async(self, request: httpx.Request) -> None:
        self.on_request(request)

    async def on_response_async(self, response: httpx.Response) -> None:
        self.on_response(response)

    def sync_client(self, timeout: float = 60.0) -> httpx.Client:
        return httpx.Client(timeout=timeout, event_hooks={"request": [self.on_request], "response": [self.on_response]})

    def async_client(self, timeout: float = 60.0) -> httpx.AsyncClient:
        hooks = {"request": [self.on_request_async], "response": [self.on_response_async]}
        return httpx.AsyncClient(timeout=timeout, event_hooks=hooks)

    @property
    def statuses(self) -> List[Optional[int]]:
        return [exchange.status for exchange in self.exchanges]
