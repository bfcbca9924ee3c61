"""Every error class, each from a real answer (or a real failure to get one)."""

import socket
import threading
from typing import Iterator, List

import pytest

from tests.conftest import MakeClient, Orgs
from tests.support.clients import resolve
from tests.support.fake_llm import FakeLlm
from tests.support.server import Org, VigilServer
from vigil import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AsyncVigil,
    AuthenticationError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PlanRequiredError,
    RateLimitError,
    ValidationError,
    Vigil,
    VigilError,
)


def test_a_missing_key_is_a_clear_error_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIGIL_API_KEY", raising=False)
    for client_class in (Vigil, AsyncVigil):
        with pytest.raises(VigilError, match="VIGIL_API_KEY"):
            client_class()


async def test_key_and_base_url_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, server: VigilServer, orgs: Orgs) -> None:
    monkeypatch.setenv("VIGIL_API_KEY", orgs.main.api_key)
    monkeypatch.setenv("VIGIL_BASE_URL", server.base_url)
    with Vigil() as vigil:
        assert vigil.usage.retrieve().plan == "business"
    async with AsyncVigil() as async_vigil:
        assert (await async_vigil.usage.retrieve()).plan == "business"


async def test_401_unknown_key(make_client: MakeClient) -> None:
    v, _ = make_client(api_key="svc_live_" + "0" * 64)
    with pytest.raises(AuthenticationError) as raised:
        await resolve(v.projects.retrieve("proj_01jd3v7f3ygc0x6m8pj6kq2e9r"))
    error = raised.value
    assert (error.status, error.code) == (401, "UNAUTHORIZED")
    assert error.request_id is not None and error.request_id.startswith("req_")
    assert error.headers["x-request-id"] == error.request_id


async def test_403_plan_without_api_access(make_client: MakeClient, orgs: Orgs) -> None:
    v, _ = make_client(api_key=orgs.free.api_key)
    with pytest.raises(PlanRequiredError) as raised:
        await resolve(v.usage.retrieve())
    assert (raised.value.status, raised.value.code) == (403, "PLAN_UPGRADE_REQUIRED")


async def test_404_and_409(make_client: MakeClient, unique: str) -> None:
    v, _ = make_client()
    with pytest.raises(NotFoundError) as missing:
        await resolve(v.alerts.retrieve("alrt_01jd3v7f3ygc0x6m8pj6kq2e9r"))
    assert (missing.value.status, missing.value.code) == (404, "NOT_FOUND")
    joined = await resolve(v.users.invite(email=f"joined.{unique}@example.com", role="viewer"))
    await resolve(v.users.activate(joined.id))
    with pytest.raises(ConflictError) as conflict:
        await resolve(v.users.activate(joined.id))
    assert conflict.value.status == 409 and isinstance(conflict.value, APIError)


async def test_422_names_each_field(make_client: MakeClient) -> None:
    v, _ = make_client()
    project = await resolve(v.projects.create(name="Validation"))
    with pytest.raises(ValidationError) as raised:
        await resolve(v.alerts.create(project_id=project.id, title="", severity="high"))
    assert (raised.value.status, raised.value.code) == (422, "VALIDATION_ERROR")
    assert raised.value.details is not None and raised.value.details[0]["field"] == "title"


async def test_429_with_retry_after(make_client: MakeClient, limited: Org) -> None:
    v, recorder = make_client(api_key=limited.api_key, max_retries=0)
    with pytest.raises(RateLimitError) as raised:
        for _ in range(10):
            await resolve(v.usage.retrieve())
    error = raised.value
    assert (error.status, error.code) == (429, "RATE_LIMITED")
    assert error.retry_after is not None and 1 <= error.retry_after <= 60
    assert error.headers["x-ratelimit-limit"] == "3"
    # With max_retries=0 the first 429 ends the loop: it is the last exchange and the only one.
    # (How many 200s came first depends on where the one-minute window began, and on the other
    # tests that share this organization.)
    assert recorder.statuses[-1] == 429 and recorder.statuses.count(429) == 1


async def test_5xx_is_an_internal_server_error(make_client: MakeClient, llm: FakeLlm) -> None:
    v, _ = make_client(max_retries=0)
    project = await resolve(v.projects.create(name="AI outage"))
    llm.fail_next(5)
    try:
        with pytest.raises(InternalServerError) as raised:
            await resolve(v.chat.ask(message="How many alerts?", project_id=project.id))
    finally:
        llm.fail_next(0)
    assert raised.value.status == 502 and raised.value.code == "AI_PROVIDER_ERROR"


async def test_connection_refused(make_client: MakeClient, closed_port: int) -> None:
    v, recorder = make_client(base_url=f"http://127.0.0.1:{closed_port}/api/v1", max_retries=1)
    with pytest.raises(APIConnectionError) as raised:
        await resolve(v.usage.retrieve())
    assert not isinstance(raised.value, APITimeoutError)
    assert len(recorder.exchanges) == 2


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A TCP server that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            accepted.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()
    for connection in accepted:
        connection.close()


async def test_timeout(make_client: MakeClient, silent_port: int) -> None:
    v, recorder = make_client(base_url=f"http://127.0.0.1:{silent_port}/api/v1", max_retries=1, timeout=0.3)
    with pytest.raises(APITimeoutError):
        await resolve(v.usage.retrieve())
    assert len(recorder.exchanges) == 2
