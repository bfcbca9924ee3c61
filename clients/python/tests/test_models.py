"""The models are generated from the server's OpenAPI document and decoded strictly in these tests:
`_models.py` is what `scripts/generate_models.py` writes from the running server's document now,
and an answer with a field a model lacks, or without one it requires, fails (outside the tests it
is ignored, or `None`)."""

from typing import Any, Dict, Iterator

import httpx
import pytest

from scripts.generate_models import TARGET, render
from tests.conftest import Orgs
from tests.support.server import VigilServer
from vigil import Alert, Project, VigilError
from vigil._decode import decode, decode_strictly


def test_the_models_are_what_the_served_document_generates(server: VigilServer) -> None:
    document: Dict[str, Any] = httpx.get(server.base_url + "/openapi.json").json()
    assert TARGET.read_text(encoding="utf-8") == render(document), "src/vigil/_models.py is stale: run npm run generate"


@pytest.fixture
def lenient() -> Iterator[None]:
    decode_strictly(False)
    yield
    decode_strictly(True)


def an_alert(server: VigilServer, orgs: Orgs) -> Dict[str, Any]:
    headers = {"Authorization": f"Bearer {orgs.main.api_key}"}
    project = httpx.post(server.base_url + "/projects", json={"name": "Decoded"}, headers=headers).json()["data"]
    body = {"projectId": project["id"], "title": "Decoded", "severity": "low"}
    answer: Dict[str, Any] = httpx.post(server.base_url + "/alerts", json=body, headers=headers).json()["data"]
    return answer


def test_tests_decode_strictly_an_unknown_or_missing_field(server: VigilServer, orgs: Orgs) -> None:
    answer = an_alert(server, orgs)
    assert decode(Alert, answer).title == "Decoded"
    with pytest.raises(VigilError, match=r"Alert: the answer has fields the model lacks: \['addedLater'\]"):
        decode(Alert, {**answer, "addedLater": 1})
    without_title = {key: value for key, value in answer.items() if key != "title"}
    with pytest.raises(VigilError, match="Alert: the answer has no 'title'"):
        decode(Alert, without_title)


def test_users_decode_leniently(server: VigilServer, orgs: Orgs, lenient: None) -> None:
    answer = an_alert(server, orgs)
    assert decode(Alert, {**answer, "addedLater": 1}).title == "Decoded"
    without_title = {key: value for key, value in answer.items() if key != "title"}
    assert decode(Alert, without_title).title is None
    assert decode(Project, {"id": "proj_1", "name": "Old"}).created_at is None
