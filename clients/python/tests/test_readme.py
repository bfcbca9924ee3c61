"""The Flask receiver of README.md (`<!-- example: flask-receiver -->`) gets and verifies a real
delivery. The README's other examples run in the docs test (packages/server/test/docs-examples.test.ts)."""

import queue
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, Tuple

import pytest
from werkzeug.serving import make_server

from tests.conftest import Orgs
from tests.support.server import VigilServer
from vigil import Vigil, WebhookEvent

README = Path(__file__).resolve().parent.parent / "README.md"
StartResponse = Callable[..., Any]


def flask_receiver() -> str:
    found = re.search(r"<!-- example: flask-receiver -->\s*```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert found is not None, "README.md has no <!-- example: flask-receiver --> block"
    return found.group(1)


@pytest.fixture
def wsgi_server() -> Iterator[Tuple[int, Dict[str, Any]]]:
    """A real HTTP server on loopback that serves whatever WSGI app is put in `holder["app"]`."""
    holder: Dict[str, Any] = {}

    def dispatch(environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        app: Callable[[Dict[str, Any], StartResponse], Iterable[bytes]] = holder["app"]
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, dispatch, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port, holder
    server.shutdown()


def test_the_readme_flask_receiver_verifies_a_real_delivery(
    server: VigilServer, orgs: Orgs, monkeypatch: pytest.MonkeyPatch, wsgi_server: Tuple[int, Dict[str, Any]]
) -> None:
    monkeypatch.setenv("VIGIL_API_KEY", orgs.main.api_key)
    monkeypatch.setenv("VIGIL_BASE_URL", server.base_url)
    receiver = flask_receiver()
    namespace: Dict[str, Any] = {"__name__": "readme"}

    port, holder = wsgi_server
    with Vigil() as client:
        hook = client.webhooks.create(name="README receiver", url=f"http://127.0.0.1:{port}/vigil-webhooks", events=["project.created"])
        assert hook.secret is not None
        monkeypatch.setenv("VIGIL_WEBHOOK_SECRET", hook.secret)
        exec(compile(receiver, "README.md Flask receiver", "exec"), namespace)
        handled: "queue.Queue[WebhookEvent]" = queue.Queue()
        namespace["handle"] = handled.put
        holder["app"] = namespace["app"]

        project = client.projects.create(name="Announced to the receiver")
        event = handled.get(timeout=30)
        assert (event.event, event.data["id"]) == ("project.created", project.id)
        delivery = client.webhooks.deliveries.retrieve(hook.id, event.id or "")
        deadline = time.monotonic() + 30
        while delivery.status == "pending" and time.monotonic() < deadline:  # the answer is recorded after it is sent
            time.sleep(0.1)
            delivery = client.webhooks.deliveries.retrieve(hook.id, delivery.id)
        assert delivery.status == "delivered" and delivery.attempts[0].http_status == 204
        client.webhooks.delete(hook.id)

    forged = namespace["app"].test_client().post("/vigil-webhooks", data=b'{"event":"project.created"}', headers={"webhook-id": "x"})
    assert forged.status_code == 400 and handled.empty()
