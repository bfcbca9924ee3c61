"""Every operation of the server's OpenAPI document has its method (and its `with_raw_response` twin) in both clients, found by the
operation's `x-vigil-client-method` (`webhooks.deliveries.retry` → `webhooks.deliveries.retry`,
`webhooks.rotateSecret` → `webhooks.rotate_secret`)."""

import keyword
import re
from typing import Any, Dict, List

import httpx

from tests.conftest import Orgs
from tests.support.server import VigilServer
from vigil import AsyncVigil, Vigil

# Operations a client library cannot call: API keys are managed by admin console sessions only
# (DESIGN §3.9); an API key gets 403.
SESSION_ONLY = {"apiKeys": "API keys are managed by admin sessions of the console, never with an API key"}


def python_name(part: str) -> str:
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", part).lower()
    return snake + "_" if keyword.iskeyword(snake) else snake


def test_every_operation_has_a_method_in_both_clients(server: VigilServer, orgs: Orgs) -> None:
    document: Dict[str, Any] = httpx.get(server.base_url + "/openapi.json").json()
    clients = {"Vigil": Vigil(api_key=orgs.main.api_key, base_url=server.base_url), "AsyncVigil": AsyncVigil(api_key=orgs.main.api_key, base_url=server.base_url)}
    problems: List[str] = []
    checked = 0
    for route, operations in document["paths"].items():
        for verb, operation in operations.items():
            method = operation.get("x-vigil-client-method")
            if not isinstance(method, str):
                problems.append(f"{verb.upper()} {route} has no x-vigil-client-method")
                continue
            if method.split(".")[0] in SESSION_ONLY:
                continue
            for client_name, client in clients.items():
                target: Any = client
                for part in method.split("."):
                    target = getattr(target, python_name(part), None)
                if not callable(target):
                    problems.append(f"{client_name} lacks {'.'.join(map(python_name, method.split('.')))} for {verb.upper()} {route}")
                *namespaces, name = method.split(".")
                raw: Any = client
                for part in namespaces:
                    raw = getattr(raw, python_name(part), None)
                if not callable(getattr(getattr(raw, "with_raw_response", None), python_name(name), None)):
                    problems.append(f"{client_name} lacks {'.'.join(map(python_name, namespaces))}.with_raw_response.{python_name(name)}")
            checked += 1
    assert problems == []
    assert checked >= 50
