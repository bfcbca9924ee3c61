"""Per-call options (`timeout=`, `max_retries=`, `extra_headers=`, `extra_query=`), configured copies
(`with_options`), raw responses (`with_raw_response`) and the server's `x-should-retry`, in both
clients against the real server."""

import io
import socket
import time
from typing import Any, Callable, Iterator, List, Tuple, Union

import httpx
import pytest

from tests.conftest import Orgs
from tests.support.clients import AnyVigil, collect, resolve
from tests.support.server import Org, VigilServer
from vigil import (
    Alert,
    APITimeoutError,
    AsyncVigil,
    ConflictError,
    InternalServerError,
    NotFoundError,
    Page,
    AsyncPage,
    ValidationError,
    Vigil,
)

Seen = List[httpx.Request]
Answered = List[httpx.Response]
Rewrite = Callable[[httpx.Response], None]


@pytest.fixture(params=["sync", "async"])
async def traced(request: pytest.FixtureRequest) -> Any:
    """Builds a `Vigil` (then `AsyncVigil`) whose requests and answers are kept; `rewrite` may change an answer first."""
    made: List[Union[httpx.Client, httpx.AsyncClient]] = []

    def make(api_key: str, base_url: str, rewrite: Rewrite = lambda response: None, **options: Any) -> Tuple[AnyVigil, Seen, Answered]:
        seen: Seen = []
        answered: Answered = []

        def on_response(response: httpx.Response) -> None:
            rewrite(response)
            answered.append(response)

        if request.param == "sync":
            http = httpx.Client(event_hooks={"request": [seen.append], "response": [on_response]})
            made.append(http)
            return Vigil(api_key=api_key, base_url=base_url, http_client=http, **options), seen, answered

        async def on_request_async(sent: httpx.Request) -> None:
            seen.append(sent)

        async def on_response_async(response: httpx.Response) -> None:
            on_response(response)

        async_http = httpx.AsyncClient(event_hooks={"request": [on_request_async], "response": [on_response_async]})
        made.append(async_http)
        return AsyncVigil(api_key=api_key, base_url=base_url, http_client=async_http, **options), seen, answered

    yield make
    for http in made:
        if isinstance(http, httpx.AsyncClient):
            await http.aclose()
        else:
            http.close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


async def test_a_call_sends_its_own_headers_and_query_over_the_defaults(traced: Any, server: VigilServer, orgs: Orgs) -> None:
    v, seen, _ = traced(orgs.main.api_key, server.base_url, default_headers={"X-Team": "sre", "X-Tier": "one"})
    project = await resolve(v.projects.create(name="Per call"))
    await resolve(v.alerts.list(project_id=project.id, extra_headers={"X-Tier": "two"}, extra_query={"limit": 1, "severity": "high"}))
    call = seen[-1]
    assert (call.headers["x-team"], call.headers["x-tier"]) == ("sre", "two")
    assert dict(call.url.params) == {"projectId": project.id, "limit": "1", "severity": "high"}


async def test_a_call_has_its_own_timeout_and_retries(traced: Any, silent_port: int, without_ai: Tuple[VigilServer, Org]) -> None:
    silent, _, _ = traced("svc_live_x", f"http://127.0.0.1:{silent_port}/api/v1")
    with pytest.raises(APITimeoutError):
        await resolve(silent.usage.retrieve(timeout=0.2, max_retries=0))
    server, org = without_ai
    v, seen, answered = traced(org.api_key, server.base_url)
    project = await resolve(v.projects.create(name="No AI"))
    before = len(seen)
    with pytest.raises(InternalServerError):
        await resolve(v.chat.ask(message="Anyone?", project_id=project.id, max_retries=0))
    assert len(seen) - before == 1
    assert answered[-1].headers["x-should-retry"] == "true"


async def test_with_options_is_a_configured_copy(traced: Any, server: VigilServer, orgs: Orgs) -> None:
    original, seen, _ = traced(orgs.main.api_key, server.base_url, default_headers={"X-Team": "sre"})
    patient = original.with_options(max_retries=5, timeout=5.0, default_headers={"X-Purpose": "batch"})
    assert (patient.max_retries, patient.timeout, patient.base_url) == (5, 5.0, original.base_url)
    assert (original.max_retries, original.timeout) == (2, 60.0)
    await resolve(patient.usage.retrieve())
    await resolve(original.usage.retrieve())
    assert [(call.headers.get("x-team"), call.headers.get("x-purpose")) for call in seen] == [("sre", "batch"), ("sre", None)]
    with pytest.raises(Exception) as refused:
        await resolve(original.with_options(api_key="svc_live_" + "0" * 64).usage.retrieve())
    assert getattr(refused.value, "status", None) == 401


async def test_with_raw_response_gives_status_headers_and_the_parsed_result(v: AnyVigil, tmp_path: Any) -> None:
    project = await resolve(v.projects.create(name="Raw"))
    raw = await resolve(v.alerts.with_raw_response.create(project_id=project.id, title="Raw", severity="low"))
    assert raw.status_code == 201
    assert raw.headers["x-request-id"].startswith("req_") and raw.request_id == raw.headers["x-request-id"]
    alert = await resolve(raw.parse())
    assert isinstance(alert, Alert) and alert.title == "Raw"
    assert raw.json()["data"]["id"] == alert.id

    listed = await resolve(v.alerts.with_raw_response.list(project_id=project.id))
    page = await resolve(listed.parse())
    assert isinstance(page, (Page, AsyncPage)) and [one.id for one in page.data] == [alert.id]
    assert int(listed.headers["x-ratelimit-limit"]) > 0

    nested = await resolve(v.embed.with_raw_response.settings.retrieve())
    assert nested.status_code == 200

    export = await resolve(v.exports.create(resource="alerts", format="csv", project_id=project.id))
    deadline = time.monotonic() + 30
    while export.status in ("pending", "running") and time.monotonic() < deadline:
        time.sleep(0.05)
        export = await resolve(v.exports.retrieve(export.id))
    download = await resolve(v.exports.with_raw_response.download(export.id, io.BytesIO()))
    assert download.headers["content-type"].startswith("text/csv")
    assert await resolve(download.parse()) > 0

    deleted = await resolve(v.alerts.with_raw_response.delete(alert.id))
    assert (deleted.status_code, await resolve(deleted.parse())) == (204, None)
    assert await collect(v.alerts.list(project_id=project.id)) == []


async def test_the_server_says_which_refusals_are_worth_retrying(traced: Any, server: VigilServer, orgs: Orgs) -> None:
    v, _, answered = traced(orgs.main.api_key, server.base_url)
    with pytest.raises(ValidationError):
        await resolve(v.alerts.create(project_id="proj_x", title="", severity="urgent"))  # type: ignore[arg-type]
    assert answered[-1].headers["x-should-retry"] == "false"
    with pytest.raises(NotFoundError):
        await resolve(v.alerts.retrieve("alrt_00000000000000000000000000"))
    assert answered[-1].headers["x-should-retry"] == "false"


async def test_the_client_follows_x_should_retry(traced: Any, server: VigilServer, orgs: Orgs, without_ai: Tuple[VigilServer, Org]) -> None:
    def retry_conflicts(response: httpx.Response) -> None:
        if response.status_code == 409:
            response.headers["x-should-retry"] = "true"

    v, seen, _ = traced(orgs.main.api_key, server.base_url, retry_conflicts, max_retries=1)
    project = await resolve(v.projects.create(name="Hints"))
    alert = await resolve(v.alerts.create(project_id=project.id, title="Resolved twice", severity="low"))
    await resolve(v.alerts.resolve(alert.id))
    before = len(seen)
    with pytest.raises(ConflictError):
        await resolve(v.alerts.acknowledge(alert.id))
    assert len(seen) - before == 2  # a 409 CONFLICT is not retried unless the server says so

    def never_retry(response: httpx.Response) -> None:
        if response.status_code == 503:
            response.headers["x-should-retry"] = "false"

    no_ai, org = without_ai
    refused, seen, _ = traced(org.api_key, no_ai.base_url, never_retry, max_retries=2)
    elsewhere = await resolve(refused.projects.create(name="No AI, no retry"))
    before = len(seen)
    with pytest.raises(InternalServerError):
        await resolve(refused.chat.ask(message="Anyone?", project_id=elsewhere.id))
    assert len(seen) - before == 1  # a 503 is retried unless the server says not to
