"""Lists are pages with `data`, `has_more`, `next_cursor` and `next_page()`; iterating one walks
every item of every page, fetching each page only when it is reached."""

import uuid
from typing import AsyncIterator, Iterator, List, Union

import pytest

from tests.conftest import MakeClient
from tests.support.clients import collect, resolve
from tests.support.server import VigilServer
from vigil import Alert, AsyncPage, AsyncVigil, Page, ValidationError, Vigil


async def test_pages_and_lazy_iteration(make_client: MakeClient) -> None:
    v, recorder = make_client()
    project = await resolve(v.projects.create(name="Many alerts"))
    created: List[str] = []
    for number in range(25):
        created.append((await resolve(v.alerts.create(project_id=project.id, title=f"Alert {number}", severity="info"))).id)

    first = await resolve(v.alerts.list(project_id=project.id, limit=10))
    assert isinstance(first, (Page, AsyncPage))
    assert len(first.data) == 10 and first.has_more and first.next_cursor is not None
    second = await resolve(first.next_page())
    assert second is not None and [alert.id for alert in second.data] == created[::-1][10:20]
    third = await resolve(second.next_page())
    assert third is not None and len(third.data) == 5 and not third.has_more and third.next_cursor is None
    assert await resolve(third.next_page()) is None

    recorder.exchanges.clear()
    items: Union[Iterator[Alert], AsyncIterator[Alert]]
    if isinstance(v, Vigil):
        items = iter(v.alerts.list(project_id=project.id, limit=10))
        firsts = [next(items) for _ in range(10)]
    else:
        assert isinstance(v, AsyncVigil)
        items = v.alerts.list(project_id=project.id, limit=10).__aiter__()
        firsts = [await items.__anext__() for _ in range(10)]
    assert len(recorder.exchanges) == 1  # only the first page so far
    rest = await collect(items)
    assert [alert.id for alert in firsts + rest] == created[::-1]
    assert len(recorder.exchanges) == 3

    walked = await collect(v.alerts.list(project_id=project.id, limit=100))
    assert len(walked) == 25 and len(recorder.exchanges) == 4


async def test_a_cursor_is_only_good_in_its_organization(make_client: MakeClient, server: VigilServer) -> None:
    v, _ = make_client()
    project = await resolve(v.projects.create(name="Two pages"))
    for number in range(2):
        await resolve(v.alerts.create(project_id=project.id, title=f"Alert {number}", severity="info"))
    first = await resolve(v.alerts.list(project_id=project.id, limit=1))
    assert isinstance(first, (Page, AsyncPage)) and first.next_cursor is not None

    other, _ = make_client(api_key=server.create_org(f"Other {uuid.uuid4().hex[:6]}", "business").api_key)
    for cursor in (first.next_cursor, "forged"):
        with pytest.raises(ValidationError) as refused:
            await resolve(other.alerts.list(cursor=cursor))
        assert refused.value.status == 422
