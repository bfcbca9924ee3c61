"""Dashboards and embed tokens, through both clients, against the running server: what a widget
shows, and that a minted token opens the dashboard's embed API until it is revoked."""

import time

import httpx
import pytest

from tests.support.clients import AnyVigil, collect, resolve
from tests.support.server import VigilServer
from vigil import NotFoundError, ValidationError, WidgetInput

BY_SEVERITY: WidgetInput = {"title": "Alerts by severity", "kind": "pie", "query": {"source": "alerts", "measure": {"fn": "count"}, "groupBy": "severity"}}


async def test_dashboards_and_their_data(v: AnyVigil, unique: str) -> None:
    project = await resolve(v.projects.create(name=f"Shop {unique}"))
    for severity in ("high", "high", "low"):
        await resolve(v.alerts.create(project_id=project.id, title=f"{severity} alert", severity=severity))

    dashboard = await resolve(v.dashboards.create(project_id=project.id, name="Shop health", widgets=[BY_SEVERITY]))
    assert dashboard.id.startswith("dash_") and dashboard.description is None
    assert [(widget.title, widget.kind, widget.query) for widget in dashboard.widgets] == [
        ("Alerts by severity", "pie", BY_SEVERITY["query"])
    ]
    assert dashboard.widgets[0].id.startswith("wgt_")

    with_total = await resolve(
        v.dashboards.widgets.add(dashboard.id, title="Active alerts", kind="number", query={"source": "alerts", "measure": {"fn": "count"}})
    )
    assert [widget.title for widget in with_total.widgets] == ["Alerts by severity", "Active alerts"]

    data = await resolve(v.dashboards.data(dashboard.id))
    assert data.dashboard_id == dashboard.id and data.refreshed_at.tzinfo is not None
    pie, total = data.widgets
    assert (pie.columns, pie.rows, pie.error) == (["severity", "count"], [{"severity": "high", "count": 2}, {"severity": "low", "count": 1}], None)
    assert total.rows == [{"count": 3}] and not total.truncated

    renamed = await resolve(v.dashboards.update(dashboard.id, name="Alerts", description="Open work", widgets=[BY_SEVERITY]))
    assert (renamed.name, renamed.description, len(renamed.widgets)) == ("Alerts", "Open work", 1)
    assert (await resolve(v.dashboards.retrieve(dashboard.id))).name == "Alerts"
    assert [one.id for one in await collect(v.dashboards.list(project_id=project.id))] == [dashboard.id]

    with pytest.raises(ValidationError) as invalid:
        await resolve(v.dashboards.widgets.add(dashboard.id, title="Sum", kind="number", query={"source": "alerts", "measure": {"fn": "sum", "column": "nope"}}))
    assert invalid.value.details

    await resolve(v.dashboards.delete(dashboard.id))
    with pytest.raises(NotFoundError):
        await resolve(v.dashboards.retrieve(dashboard.id))


def embedded_status(server: VigilServer, dashboard_id: str, token: str) -> int:
    """What the embed API (the one a web page calls) answers for the token."""
    site = server.base_url.removesuffix("/api/v1")
    return httpx.get(f"{site}/embed/api/dashboards/{dashboard_id}", headers={"Authorization": f"Bearer {token}"}).status_code


async def test_embed_tokens_open_a_dashboard_until_revoked(v: AnyVigil, server: VigilServer, unique: str) -> None:
    project = await resolve(v.projects.create(name=f"Embedded {unique}"))
    dashboard = await resolve(v.dashboards.create(project_id=project.id, name="Public", widgets=[BY_SEVERITY]))

    minted = await resolve(v.embed.tokens.create(dashboard_id=dashboard.id, expires_in_seconds=300, theme="dark"))
    assert minted.token and minted.embed_url and minted.id.startswith("emb_")
    assert (minted.dashboard_id, minted.theme, minted.revoked_at) == (dashboard.id, "dark", None)
    assert 299 <= (minted.expires_at - minted.created_at).total_seconds() <= 301
    assert embedded_status(server, dashboard.id, minted.token) == 200

    listed = await collect(v.embed.tokens.list(dashboard_id=dashboard.id))
    assert [(one.id, one.token, one.embed_url) for one in listed] == [(minted.id, None, None)]

    await resolve(v.embed.tokens.delete(minted.id))
    deadline = time.monotonic() + 5  # revocation reaches every process within a second
    while embedded_status(server, dashboard.id, minted.token) == 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert embedded_status(server, dashboard.id, minted.token) == 401
    (revoked,) = await collect(v.embed.tokens.list(dashboard_id=dashboard.id))
    assert revoked.revoked_at is not None


async def test_embed_settings_allowed_origins(v: AnyVigil) -> None:
    settings = await resolve(v.embed.settings.update(allowed_origins=["https://App.example.com/", "http://localhost:8080"]))
    assert settings.allowed_origins == ["https://app.example.com", "http://localhost:8080"] and settings.updated_at is not None
    assert (await resolve(v.embed.settings.retrieve())).allowed_origins == settings.allowed_origins

    with pytest.raises(ValidationError) as invalid:
        await resolve(v.embed.settings.update(allowed_origins=["https://app.example.com/dashboards"]))
    assert [problem["field"] for problem in invalid.value.details or []] == ["allowedOrigins[0]"]

    assert (await resolve(v.embed.settings.update(allowed_origins=[]))).allowed_origins == []
