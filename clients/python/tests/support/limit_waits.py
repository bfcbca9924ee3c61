"""The rate-limit scenario of tests/test_retries.py: both clients get a 429 and retry after its
Retry-After, which is up to a minute away (the limit counts per clock minute). It starts in a thread
when the session starts, on an organization of its own, and waits out the window while the other
tests run; the test asserts on what it saw."""

import asyncio
import time
from dataclasses import dataclass
from typing import Tuple

from tests.support.server import Org, VigilServer
from vigil import AsyncVigil, RateLimitError, Vigil

RATE_LIMIT = 3


@dataclass
class RetriedAfterTheLimit:
    names: Tuple[str, str]
    retry_after: float
    # Seconds from the two calls to their answers.
    waited: float


def use_up_the_window(server: VigilServer, org: Org) -> float:
    """Spends the organization's requests until a 429; the seconds until its window restarts (≥ 2)."""
    with Vigil(api_key=org.api_key, base_url=server.base_url, max_retries=0) as probe:
        while True:
            try:
                probe.usage.retrieve()
            except RateLimitError as error:
                assert error.retry_after is not None
                if error.retry_after >= 2:
                    return error.retry_after
                time.sleep(error.retry_after + 0.5)


def retry_after_the_limit(server: VigilServer) -> RetriedAfterTheLimit:
    """Uses up a limited organization's window, then creates a project with each client (one retry allowed)."""
    org = server.create_org("Limited (retries)", "enterprise")
    server.admin({"kind": "org.set-rate-limit", "orgId": org.id, "perMinute": RATE_LIMIT})
    retry_after = use_up_the_window(server, org)

    async def both() -> Tuple[str, str]:
        with Vigil(api_key=org.api_key, base_url=server.base_url, max_retries=1) as sync_client:
            async with AsyncVigil(api_key=org.api_key, base_url=server.base_url, max_retries=1) as async_client:
                from_sync, from_async = await asyncio.gather(
                    asyncio.to_thread(sync_client.projects.create, name="After the limit (sync)"),
                    async_client.projects.create(name="After the limit (async)"),
                )
        return from_sync.name, from_async.name

    started = time.monotonic()
    names = asyncio.run(both())
    return RetriedAfterTheLimit(names=names, retry_after=retry_after, waited=time.monotonic() - started)
