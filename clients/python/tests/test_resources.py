"""Every namespace, through both clients, against the running server."""

import io
import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import MAIN_RATE_LIMIT
from tests.support.clients import AnyVigil, collect, resolve
from tests.support.fake_llm import ANSWER
from vigil import Alert, ConflictError, NotFoundError, Project

POSTGRES_URL = os.environ.get("VIGIL_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")


async def new_project(v: AnyVigil, unique: str) -> Project:
    return await resolve(v.projects.create(name=f"Checkout {unique}", area="payments"))


async def test_projects(v: AnyVigil, unique: str) -> None:
    project = await new_project(v, unique)
    assert project.id.startswith("proj_")
    assert project.area == "payments" and project.description is None
    assert isinstance(project.created_at, datetime) and project.created_at.tzinfo is not None

    updated = await resolve(v.projects.update(project.id, description="Card payments", area=None))
    assert (updated.description, updated.area) == ("Card payments", None)
    assert updated.updated_at >= project.updated_at
    assert (await resolve(v.projects.retrieve(project.id))).description == "Card payments"
    assert project.id in [one.id for one in await collect(v.projects.list(limit=100))]

    await resolve(v.projects.delete(project.id))
    with pytest.raises(NotFoundError):
        await resolve(v.projects.retrieve(project.id))


async def test_alerts_and_their_lifecycle(v: AnyVigil, unique: str) -> None:
    project = await new_project(v, unique)
    alert = await resolve(
        v.alerts.create(project_id=project.id, title="p99 latency over budget", severity="high", value="912 ms", threshold="500 ms")
    )
    assert isinstance(alert, Alert)
    assert (alert.status, alert.severity, alert.value, alert.acknowledged_at) == ("active", "high", "912 ms", None)

    # The founding admin is still invited (they join through the invitation link): assign someone active.
    on_call = await resolve(v.users.invite(email=f"on-call.{unique}@example.com", role="member"))
    await resolve(v.users.activate(on_call.id))
    assigned = await resolve(v.alerts.assign(alert.id, user_id=on_call.id))
    assert assigned.assignee_id == on_call.id

    acknowledged = await resolve(v.alerts.acknowledge(alert.id))
    assert acknowledged.status == "acknowledged" and isinstance(acknowledged.acknowledged_at, datetime)
    with pytest.raises(ConflictError) as conflict:
        await resolve(v.alerts.acknowledge(alert.id))
    assert conflict.value.code == "CONFLICT"

    resolved = await resolve(v.alerts.resolve(alert.id))
    assert resolved.status == "resolved" and resolved.resolved_at is not None

    critical = await resolve(v.alerts.create(project_id=project.id, title="Checkout down", severity="critical"))
    changed = await resolve(v.alerts.update(critical.id, severity="medium", description="Recovered by itself"))
    assert (changed.severity, changed.description) == ("medium", "Recovered by itself")
    listed = await collect(v.alerts.list(project_id=project.id, status="active"))
    assert [one.id for one in listed] == [critical.id]
    assert (await resolve(v.alerts.retrieve(alert.id))).status == "resolved"
    story = await resolve(v.alerts.timeline(alert.id))
    assert [entry.event for entry in story] == ["alert.created", "alert.assigned", "alert.acknowledged", "alert.resolved"]
    assert story[0].actor is not None and story[0].actor["type"] == "apiKey" and isinstance(story[0].at, datetime)
    counts = await resolve(v.alerts.open_counts(project_id=project.id))
    assert (counts.critical, counts.medium, counts.high) == (0, 1, 0)

    await resolve(v.alerts.delete(critical.id))
    assert [one.id for one in await collect(v.alerts.list(project_id=project.id))] == [alert.id]


async def test_alerts_deduplicated_by_dedup_key(v: AnyVigil, unique: str) -> None:
    project = await new_project(v, unique)
    first = await resolve(v.alerts.create(project_id=project.id, title="Backup failed", severity="high", dedup_key=f"backup/{unique}"))
    repeat = await resolve(v.alerts.create(project_id=project.id, title="Backup failed", severity="high", dedup_key=f"backup/{unique}"))
    assert (first.dedup_key, first.occurrences, first.last_seen_at) == (f"backup/{unique}", 1, first.created_at)
    assert (repeat.id, repeat.occurrences) == (first.id, 2) and repeat.last_seen_at >= first.last_seen_at
    listed = await collect(v.alerts.list(dedup_key=f"backup/{unique}"))
    assert [(one.id, one.occurrences) for one in listed] == [(first.id, 2)]


async def test_integrations_alertmanager(v: AnyVigil, unique: str) -> None:
    project = await new_project(v, unique)
    fingerprint = f"fp{unique}"
    alert = {"status": "firing", "labels": {"alertname": "InstanceDown", "severity": "warning"}, "annotations": {"summary": "db-1 down"}, "fingerprint": fingerprint}
    payload = {"version": "4", "status": "firing", "alerts": [alert]}
    created = await resolve(v.integrations.alertmanager(project_id=project.id, payload=payload))
    assert (created.created, created.repeated, created.resolved) == (1, 0, 0)
    repeated = await resolve(v.integrations.alertmanager(project_id=project.id, payload=payload))
    assert (repeated.created, repeated.repeated, repeated.resolved) == (0, 1, 0)
    resolved = await resolve(v.integrations.alertmanager(project_id=project.id, payload={"version": "4", "alerts": [{**alert, "status": "resolved"}]}))
    assert (resolved.created, resolved.repeated, resolved.resolved) == (0, 0, 1)
    [stored] = await collect(v.alerts.list(dedup_key=fingerprint))
    assert (stored.title, stored.severity, stored.status, stored.occurrences) == ("InstanceDown: db-1 down", "medium", "resolved", 2)


async def test_users(v: AnyVigil, unique: str) -> None:
    invited = await resolve(v.users.invite(email=f"dana.{unique}@example.com", role="member", name="Dana"))
    assert (invited.status, invited.role, invited.name) == ("invited", "member", "Dana")
    assert invited.invite_url is not None and urlparse(invited.invite_url).scheme == "http"
    assert (await resolve(v.users.retrieve(invited.id))).invite_url is None

    active = await resolve(v.users.activate(invited.id))
    assert active.status == "active"
    viewer = await resolve(v.users.update(invited.id, role="viewer", name=None))
    assert (viewer.role, viewer.name) == ("viewer", None)
    deactivated = await resolve(v.users.deactivate(invited.id))
    assert deactivated.status == "deactivated"
    assert (await resolve(v.users.retrieve(invited.id))).status == "deactivated"
    assert invited.id in [one.id for one in await collect(v.users.list(status="deactivated"))]


async def test_webhooks_and_deliveries(v: AnyVigil, unique: str) -> None:
    hook = await resolve(v.webhooks.create(name=f"Ops {unique}", url="http://127.0.0.1:9/hook", events=["project.created"]))
    assert hook.secret is not None and hook.secret.startswith("whsec_") and hook.is_active

    fetched = await resolve(v.webhooks.retrieve(hook.id))
    assert fetched.secret is None
    renamed = await resolve(v.webhooks.update(hook.id, name=f"Ops pager {unique}", events=["project.created", "alert.created"]))
    assert renamed.events == ["project.created", "alert.created"]
    rotated = await resolve(v.webhooks.rotate_secret(hook.id))
    assert rotated.secret is not None and rotated.secret != hook.secret
    assert hook.id in [one.id for one in await collect(v.webhooks.list())]

    await new_project(v, unique)  # project.created: a delivery to a port where nothing listens
    deadline = time.monotonic() + 30
    deliveries = await collect(v.webhooks.deliveries.list(hook.id))
    while not (deliveries and deliveries[0].attempts) and time.monotonic() < deadline:
        time.sleep(0.2)
        deliveries = await collect(v.webhooks.deliveries.list(hook.id))
    delivery = deliveries[0]
    assert delivery.event == "project.created" and delivery.payload.event == "project.created"
    assert delivery.attempts[0].error == "refused" and isinstance(delivery.attempts[0].started_at, datetime)

    retried = await resolve(v.webhooks.deliveries.retry(hook.id, delivery.id))
    assert retried.id == delivery.id
    assert (await resolve(v.webhooks.deliveries.retrieve(hook.id, delivery.id))).webhook_id == hook.id

    recovery = await resolve(v.webhooks.recover(hook.id, since=datetime.now(timezone.utc) - timedelta(hours=1)))
    assert recovery.webhook_id == hook.id and recovery.deliveries >= 0

    await resolve(v.webhooks.delete(hook.id))
    with pytest.raises(NotFoundError):
        await resolve(v.webhooks.retrieve(hook.id))


CSV = b"day,region,amount\n2026-01-01,north,10.5\n2026-01-02,south,7\n2026-01-03,north,3.25\n"


async def test_datasets_upload_from_a_path_bytes_and_a_file(v: AnyVigil, unique: str, tmp_path: Path) -> None:
    project = await new_project(v, unique)
    csv_path = tmp_path / "sales.csv"
    csv_path.write_bytes(CSV)

    from_path = await resolve(v.datasets.upload(project.id, csv_path))
    assert (from_path.name, from_path.status, from_path.row_count) == ("sales", "ready", 3)
    assert [column.name for column in from_path.columns] == ["day", "region", "amount"]
    from_bytes = await resolve(v.datasets.upload(project.id, CSV, name="sales from bytes"))
    assert from_bytes.name == "sales from bytes"
    with csv_path.open("rb") as file:
        from_file = await resolve(v.datasets.upload(project.id, file, types="amount:text"))
    assert {column.name: column.type for column in from_file.columns}["amount"] == "text"

    rows = await collect(v.datasets.rows(from_path.id, limit=2))
    assert [row["region"] for row in rows] == ["north", "south", "north"]
    assert {one.id for one in await collect(v.datasets.list(project_id=project.id))} == {from_path.id, from_bytes.id, from_file.id}
    assert (await resolve(v.datasets.retrieve(from_bytes.id))).row_count == 3

    await resolve(v.datasets.delete(from_bytes.id))
    with pytest.raises(NotFoundError):
        await resolve(v.datasets.retrieve(from_bytes.id))


async def test_connections_test_and_import(v: AnyVigil, unique: str) -> None:
    target = urlparse(POSTGRES_URL)
    project = await new_project(v, unique)
    connection = await resolve(
        v.connections.create(
            name=f"Warehouse {unique}",
            db_type="postgresql",
            host=target.hostname or "127.0.0.1",
            port=target.port or 5432,
            database=target.path.lstrip("/"),
            username=target.username or "postgres",
            password=target.password or "",
            ssl_mode="disable",
        )
    )
    assert connection.status == "pending" and not hasattr(connection, "password")

    tested = await resolve(v.connections.test(connection.id))
    assert (tested.status, tested.last_error) == ("connected", None)
    renamed = await resolve(v.connections.update(connection.id, name=f"Main warehouse {unique}"))
    assert renamed.name == f"Main warehouse {unique}"
    assert connection.id in [one.id for one in await collect(v.connections.list())]

    importing = await resolve(
        v.connections.import_(connection.id, project_id=project.id, query="SELECT n, n * 2 AS doubled FROM generate_series(1, 5) AS n", name="series")
    )
    assert importing.status == "importing"
    deadline = time.monotonic() + 30
    dataset = await resolve(v.datasets.retrieve(importing.id))
    while dataset.status == "importing" and time.monotonic() < deadline:
        time.sleep(0.2)
        dataset = await resolve(v.datasets.retrieve(importing.id))
    assert (dataset.status, dataset.row_count, dataset.error) == ("ready", 5, None)

    await resolve(v.connections.delete(connection.id))
    with pytest.raises(NotFoundError):
        await resolve(v.connections.retrieve(connection.id))


async def test_chat_and_history(v: AnyVigil, unique: str) -> None:
    project = await new_project(v, unique)
    answer = await resolve(v.chat.ask(message="How many alerts are active?", project_id=project.id))
    assert (answer.answer, answer.model, answer.tokens, answer.project_id) == (ANSWER, "fake-model", 50, project.id)

    entries = await collect(v.history.list(project_id=project.id))
    assert [entry.id for entry in entries] == [answer.query_id]
    entry = await resolve(v.history.retrieve(answer.query_id))
    assert (entry.question, entry.answer, entry.status) == ("How many alerts are active?", ANSWER, "completed")
    assert isinstance(entry.created_at, datetime)

    await resolve(v.history.delete(answer.query_id))
    assert await collect(v.history.list(project_id=project.id)) == []


async def test_usage(v: AnyVigil) -> None:
    usage = await resolve(v.usage.retrieve())
    assert usage.plan == "business" and usage.limits.requests_per_minute == MAIN_RATE_LIMIT
    assert usage.totals.api_requests >= 1
    assert usage.period.start <= datetime.now(timezone.utc) < usage.period.end
    assert usage.days[-1].date == datetime.now(timezone.utc).date()


async def test_exports_download_to_a_file_and_a_stream(v: AnyVigil, unique: str, tmp_path: Path) -> None:
    project = await new_project(v, unique)
    await resolve(v.alerts.create(project_id=project.id, title="Disk almost full", severity="low"))
    export = await resolve(v.exports.create(resource="alerts", format="csv", project_id=project.id, filters={"severity": "low"}))
    assert export.status == "pending"
    deadline = time.monotonic() + 30
    while export.status in ("pending", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        export = await resolve(v.exports.retrieve(export.id))
    assert export.status == "completed" and export.row_count == 1 and export.expires_at is not None
    assert export.id in [one.id for one in await collect(v.exports.list())]

    target = tmp_path / "alerts.csv"
    written = await resolve(v.exports.download(export.id, target))
    assert written == export.size_bytes == target.stat().st_size
    assert "Disk almost full" in target.read_text()
    stream = io.BytesIO()
    await resolve(v.exports.download(export.id, stream))
    assert stream.getvalue() == target.read_bytes()
