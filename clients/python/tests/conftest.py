"""One real Vigil server for the whole session (PGlite in a temporary directory), a fake LLM for
`chat.ask`, and organizations made with the `vigil` CLI: one on Business, one on a plan without API
access, one with a tiny custom rate limit."""

import concurrent.futures
import socket
import uuid
from dataclasses import dataclass
from typing import AsyncIterator, Iterator, List, Optional, Protocol, Tuple, Union

import httpx
import pytest

from tests.support.clients import AnyVigil
from tests.support.fake_llm import FakeLlm
from tests.support.limit_waits import RATE_LIMIT, RetriedAfterTheLimit, retry_after_the_limit
from tests.support.package_checks import PackageChecks, start_package_checks
from tests.support.recorder import Recorder
from tests.support.server import Org, VigilServer, start_vigil
from vigil import AsyncVigil, Vigil
from vigil._decode import decode_strictly

# The Business organization's contract: the tests make more than the plan's 120 requests a minute,
# and each 429 would have the client wait out the window (the rate limit has tests of its own).
MAIN_RATE_LIMIT = 100_000

# A model that drifted from the server fails the test that reads it (tests/test_models.py).
decode_strictly(True)


@dataclass
class Orgs:
    main: Org
    free: Org
    limited: "concurrent.futures.Future[Org]"


@pytest.fixture(scope="session")
def llm() -> Iterator[FakeLlm]:
    fake = FakeLlm()
    yield fake
    fake.close()


def _uses_fixture(session: pytest.Session, name: str) -> bool:
    return any(isinstance(item, pytest.Function) and name in item.fixturenames for item in session.items)


@pytest.fixture(scope="session", autouse=True)
def package_checks(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Optional[PackageChecks]]:
    """Started with the session when a test of tests/test_package.py is in it (see package_checks.py)."""
    if not _uses_fixture(request.session, "package_checks"):
        yield None
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as executor:
        yield start_package_checks(executor, tmp_path_factory.mktemp("package"))


@pytest.fixture(scope="session", autouse=True)
def retried_after_the_limit(request: pytest.FixtureRequest) -> Iterator[Optional["concurrent.futures.Future[RetriedAfterTheLimit]"]]:
    """Started with the session when the test that needs it is in it (see limit_waits.py)."""
    if not _uses_fixture(request.session, "retried_after_the_limit"):
        yield None
        return
    server: VigilServer = request.getfixturevalue("server")
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as executor:
        yield executor.submit(retry_after_the_limit, server)


@pytest.fixture(scope="session")
def starting_without_ai(pool: concurrent.futures.ThreadPoolExecutor) -> Iterator["concurrent.futures.Future[VigilServer]"]:
    """A second server, without an AI provider (its /chat answers 503), started beside the first."""
    future = pool.submit(start_vigil, {})
    yield future
    future.result().stop()


@pytest.fixture(scope="session")
def without_ai(starting_without_ai: "concurrent.futures.Future[VigilServer]") -> Tuple[VigilServer, Org]:
    """That server, and a Business organization on it."""
    server = starting_without_ai.result()
    return server, server.create_org("No AI", "business")


@pytest.fixture(scope="session")
def server(llm: FakeLlm, starting_without_ai: "concurrent.futures.Future[VigilServer]") -> Iterator[VigilServer]:
    vigil = start_vigil(
        {
            "VIGIL_WEBHOOK_ALLOW_PRIVATE": "true",
            "VIGIL_CONNECTIONS_ALLOW_PRIVATE": "true",
            "AI_BASE_URL": llm.base_url,
            "AI_MODEL": "fake-model",
        }
    )
    yield vigil
    vigil.stop()


@pytest.fixture(scope="session")
def pool() -> Iterator[concurrent.futures.ThreadPoolExecutor]:
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as executor:
        yield executor


@pytest.fixture(scope="session")
def orgs(server: VigilServer, pool: concurrent.futures.ThreadPoolExecutor) -> Orgs:
    # The rate-limited organization is made with the CLI, as an operator would; Node takes a few
    # seconds to start, so that runs beside the tests that do not need it.
    limited = pool.submit(_limited_org, server)
    main = server.create_org("Acme", "business")
    server.admin({"kind": "org.set-rate-limit", "orgId": main.id, "perMinute": MAIN_RATE_LIMIT})
    return Orgs(main=main, free=server.create_org("Smallco", "pro"), limited=limited)


def _limited_org(server: VigilServer) -> Org:
    org = server.create_org_with_cli("Limited", "enterprise")
    server.cli("org", "set-rate-limit", org.id, str(RATE_LIMIT))
    return org


@pytest.fixture(scope="session")
def limited(orgs: Orgs) -> Org:
    """An Enterprise organization whose contract allows RATE_LIMIT requests a minute."""
    return orgs.limited.result()


@pytest.fixture(params=["sync", "async"])
async def v(request: pytest.FixtureRequest, server: VigilServer, orgs: Orgs) -> AsyncIterator[AnyVigil]:
    """The test runs once with `Vigil` and once with `AsyncVigil`, on the Business organization."""
    if request.param == "sync":
        with Vigil(api_key=orgs.main.api_key, base_url=server.base_url) as client:
            yield client
    else:
        async with AsyncVigil(api_key=orgs.main.api_key, base_url=server.base_url) as client:
            yield client


@pytest.fixture
def unique() -> str:
    return uuid.uuid4().hex[:8]


class MakeClient(Protocol):
    def __call__(
        self, api_key: Optional[str] = None, base_url: Optional[str] = None, max_retries: int = 2, timeout: float = 60.0
    ) -> Tuple[AnyVigil, Recorder]: ...


@pytest.fixture(params=["sync", "async"])
async def make_client(request: pytest.FixtureRequest, server: VigilServer, orgs: Orgs) -> AsyncIterator[MakeClient]:
    """Builds `Vigil` (then `AsyncVigil`) clients whose traffic is recorded; the main org's key by default."""
    http_clients: List[Union[httpx.Client, httpx.AsyncClient]] = []

    def make(
        api_key: Optional[str] = None, base_url: Optional[str] = None, max_retries: int = 2, timeout: float = 60.0
    ) -> Tuple[AnyVigil, Recorder]:
        recorder = Recorder()
        key, url = api_key or orgs.main.api_key, base_url or server.base_url
        client: AnyVigil
        if request.param == "sync":
            http = recorder.sync_client(timeout)
            client = Vigil(api_key=key, base_url=url, timeout=timeout, max_retries=max_retries, http_client=http)
        else:
            http = recorder.async_client(timeout)
            client = AsyncVigil(api_key=key, base_url=url, timeout=timeout, max_retries=max_retries, http_client=http)
        http_clients.append(http)
        return client, recorder

    yield make
    for http in http_clients:
        if isinstance(http, httpx.AsyncClient):
            await http.aclose()
        else:
            http.close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
