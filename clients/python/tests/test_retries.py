"""Retries against real refusals: a rate limit's 429 (waiting its Retry-After, beside the other
tests: tests/support/limit_waits.py), a 502, and a refused connection; every attempt of a POST
carries the same Idempotency-Key."""

import concurrent.futures
import time
from typing import Optional, Tuple

import pytest

from tests.conftest import MakeClient
from tests.support.clients import resolve
from tests.support.fake_llm import ANSWER, FakeLlm
from tests.support.limit_waits import RetriedAfterTheLimit
from tests.support.server import Org, VigilServer
from vigil import APIConnectionError, InternalServerError


def test_a_429_is_retried_after_its_retry_after_by_both_clients(
    retried_after_the_limit: "Optional[concurrent.futures.Future[RetriedAfterTheLimit]]",
) -> None:
    assert retried_after_the_limit is not None
    seen = retried_after_the_limit.result(timeout=180)
    assert seen.names == ("After the limit (sync)", "After the limit (async)")
    assert seen.waited >= seen.retry_after - 1


async def test_a_5xx_is_retried_with_the_same_idempotency_key(make_client: MakeClient, llm: FakeLlm) -> None:
    v, recorder = make_client(max_retries=2)
    project = await resolve(v.projects.create(name="Flaky model"))
    llm.fail_next(2)  # Vigil tries the model twice before answering 502
    answer = await resolve(v.chat.ask(message="How many alerts?", project_id=project.id))
    assert answer.answer == ANSWER
    chat = [exchange for exchange in recorder.exchanges if exchange.path.endswith("/chat")]
    assert [exchange.status for exchange in chat] == [502, 200]
    assert chat[0].idempotency_key is not None and chat[0].idempotency_key == chat[1].idempotency_key


async def test_every_post_has_an_idempotency_key_and_a_given_one_is_used(make_client: MakeClient) -> None:
    v, recorder = make_client()
    await resolve(v.projects.create(name="Keyed", idempotency_key="create-keyed-project-1"))
    await resolve(v.projects.create(name="Unkeyed"))
    await resolve(v.usage.retrieve())
    keys = [exchange.idempotency_key for exchange in recorder.exchanges]
    assert keys[0] == "create-keyed-project-1"
    assert keys[1] is not None and len(keys[1]) == 36
    assert keys[2] is None


async def test_connection_errors_are_retried_with_growing_waits(make_client: MakeClient, closed_port: int) -> None:
    v, recorder = make_client(base_url=f"http://127.0.0.1:{closed_port}/api/v1", max_retries=2)
    started = time.monotonic()
    with pytest.raises(APIConnectionError):
        await resolve(v.projects.create(name="Nowhere"))
    waited = time.monotonic() - started
    assert len(recorder.exchanges) == 3
    assert len({exchange.idempotency_key for exchange in recorder.exchanges}) == 1
    # 0.5 s then 1 s, each less up to a quarter of jitter.
    assert 0.75 * 1.5 <= waited


async def test_a_503_is_retried_then_raised(make_client: MakeClient, without_ai: Tuple[VigilServer, Org]) -> None:
    server, org = without_ai
    v, recorder = make_client(api_key=org.api_key, base_url=server.base_url, max_retries=2)
    project = await resolve(v.projects.create(name="Asked without AI"))  # an unknown project is a 404 first
    recorder.exchanges.clear()
    with pytest.raises(InternalServerError) as raised:
        await resolve(v.chat.ask(message="How many alerts?", project_id=project.id))
    assert (raised.value.status, raised.value.code) == (503, "SERVICE_UNAVAILABLE")
    assert recorder.statuses == [503, 503, 503]
    assert len({exchange.idempotency_key for exchange in recorder.exchanges}) == 1
