"""`vigil.webhooks.verify` on real deliveries from the running server, through a secret rotation."""

import time
from typing import Dict, Iterator

import pytest

import vigil
from tests.conftest import Orgs
from tests.support.receiver import Receiver
from tests.support.server import VigilServer
from vigil import AsyncVigil, Vigil, WebhookVerificationError


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    endpoint = Receiver()
    yield endpoint
    endpoint.close()


def without(headers: Dict[str, str], *names: str) -> Dict[str, str]:
    return {name: value for name, value in headers.items() if name.lower() not in names}


def test_real_deliveries_verify_before_and_after_a_rotation(server: VigilServer, orgs: Orgs, receiver: Receiver) -> None:
    with Vigil(api_key=orgs.main.api_key, base_url=server.base_url) as client:
        hook = client.webhooks.create(name="Receiver", url=receiver.url, events=["project.created"])
        old_secret = hook.secret
        assert old_secret is not None
        project = client.projects.create(name="Signed")

        first = receiver.next()
        event = vigil.webhooks.verify(first.body, first.headers, old_secret)
        assert (event.event, event.org_id, event.data["id"]) == ("project.created", orgs.main.id, project.id)
        assert event.id is not None and event.id.startswith("dlv_") and event.timestamp.tzinfo is not None
        assert client.webhooks.verify is vigil.webhooks.verify

        new_secret = client.webhooks.rotate_secret(hook.id).secret
        assert new_secret is not None
        client.projects.create(name="Signed twice")
        second = receiver.next()
        client.webhooks.delete(hook.id)

    assert len(second.headers["webhook-signature"].split()) == 2
    for secret in (new_secret, old_secret, [old_secret, new_secret]):
        assert vigil.webhooks.verify(second.body, second.headers, secret).data["name"] == "Signed twice"
    with pytest.raises(WebhookVerificationError):
        vigil.webhooks.verify(first.body, first.headers, new_secret)

    # Without the Standard Webhooks headers, X-Service-Signature (signed with the current secret) decides.
    legacy = without(second.headers, "webhook-id", "webhook-timestamp", "webhook-signature")
    assert vigil.webhooks.verify(second.body, legacy, new_secret).id == second.headers["x-service-delivery"]
    with pytest.raises(WebhookVerificationError, match="X-Service-Signature"):
        vigil.webhooks.verify(second.body, legacy, old_secret)


def test_tampering_and_replays_are_refused(server: VigilServer, orgs: Orgs, receiver: Receiver) -> None:
    with Vigil(api_key=orgs.main.api_key, base_url=server.base_url) as client:
        hook = client.webhooks.create(name="Receiver", url=receiver.url, events=["project.created"])
        client.projects.create(name="Original")
        delivery = receiver.next()
        client.webhooks.delete(hook.id)
    secret = hook.secret or ""

    with pytest.raises(WebhookVerificationError, match="signature"):
        vigil.webhooks.verify(delivery.body.replace(b"Original", b"Tampered"), delivery.headers, secret)
    replayed = {**delivery.headers, "webhook-timestamp": str(int(time.time()) - 3600)}
    with pytest.raises(WebhookVerificationError, match="timestamp"):
        vigil.webhooks.verify(delivery.body, replayed, secret)
    with pytest.raises(WebhookVerificationError, match="no webhook-signature"):
        vigil.webhooks.verify(delivery.body, {"content-type": "application/json"}, secret)
    # The body as text works too, and a generous tolerance accepts the same delivery.
    assert vigil.webhooks.verify(delivery.body.decode(), delivery.headers, secret, tolerance=3600).event == "project.created"


async def test_the_async_client_exposes_the_same_verify(server: VigilServer, orgs: Orgs) -> None:
    async with AsyncVigil(api_key=orgs.main.api_key, base_url=server.base_url) as client:
        assert client.webhooks.verify is vigil.webhooks.verify
