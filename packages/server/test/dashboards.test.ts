import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, startAiTestApp, type AiTestApp } from './support/ai.js';
import type { TestApp, TestOrg } from './support/app.js';
import { type Dashboard, seedDashboard, type SeededDashboard, type WidgetResult } from './support/dashboards.js';
import { upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';
import { createProject, type ErrorBody, type List, type One } from './support/resources.js';

describe.each(databaseKinds())('dashboards on %s', (kind) => {
  let ai: AiTestApp;
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let seeded: SeededDashboard;
  const projectIds: string[] = [];

  beforeAll(async () => {
    ai = await startAiTestApp(kind);
    t = ai.t;
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
    seeded = await seedDashboard(t, org);
    projectIds.push(seeded.projectId);
  }, 300_000);
  afterAll(() => ai.stop(projectIds));

  const data = async (id: string, apiKey = org.apiKey) => t.request<One<{ dashboardId: string; refreshedAt: string; widgets: WidgetResult[] }>>('GET', `dashboards/${id}/data`, { apiKey });
  const byTitle = (widgets: WidgetResult[], title: string) => {
    const widget = widgets.find((candidate) => candidate.title === title);
    if (!widget) throw new Error(`no widget ${title}`);
    return widget;
  };

  it('creates a dashboard whose widgets have ids, and reads every widget computed from the real data', async () => {
    const { dashboard } = seeded;
    expect(dashboard.id).toMatch(/^dash_[0-9a-z]{26}$/);
    expect(dashboard.widgets.map((widget) => widget.kind)).toEqual(['number', 'pie', 'bar', 'line', 'table', 'alerts']);
    for (const widget of dashboard.widgets) expect(widget.id).toMatch(/^wgt_[0-9a-z]{26}$/);

    const response = await data(dashboard.id);
    expect(response.status).toBe(200);
    const widgets = response.body.data.widgets;
    expect(widgets.every((widget) => widget.error === null)).toBe(true);
    expect(byTitle(widgets, 'Active alerts').rows).toEqual([{ count: 5 }]);
    expect(byTitle(widgets, 'Alerts by severity')).toMatchObject({
      columns: ['severity', 'count'],
      rows: [{ severity: 'critical', count: 3 }, { severity: 'low', count: 2 }, { severity: 'high', count: 1 }],
    });
    expect(byTitle(widgets, 'Sales by region').rows).toEqual([{ region: 'north', sum: 150 }, { region: 'south', sum: 80 }, { region: 'east', sum: 50 }]);
    expect(byTitle(widgets, 'Sales per month').rows).toEqual([{ sold_on: '2026-01-01', sum: 230 }, { sold_on: '2026-02-01', sum: 50 }]);
    // SQL's sum of integers is numeric, which the drivers hand over as text: numbers here as in the structured widget above.
    expect(byTitle(widgets, 'Regions')).toMatchObject({ columns: ['region', 'total'], rows: [{ region: 'north', total: 150 }, { region: 'south', total: 80 }, { region: 'east', total: 50 }] });
    const latest = byTitle(widgets, 'Latest alerts');
    expect(latest.columns).toEqual(['id', 'title', 'severity', 'status', 'createdAt']);
    expect(latest.rows).toHaveLength(5);
    expect(latest.rows[0]).toMatchObject({ title: 'Typo on page', severity: 'low', status: 'active' });
  });

  it('answers a SQL widget\'s numeric values as numbers while a double keeps every digit, else as their exact text', async () => {
    const sql = "SELECT 0.1::numeric AS tenth, 320::numeric(10,2) AS money, 12345678901234567890::numeric AS long, 'NaN'::numeric AS nan, '320' AS label, 7::bigint AS count";
    const created = await t.request<One<Dashboard>>('POST', 'dashboards', {
      apiKey: org.apiKey,
      body: { projectId: seeded.projectId, name: 'Numbers', widgets: [{ title: 'Numbers', kind: 'table', query: { sql } }] },
    });
    expect(created.status).toBe(201);
    const [widget] = (await data(created.body.data.id)).body.data.widgets;
    expect(widget.rows).toEqual([{ tenth: 0.1, money: 320, long: '12345678901234567890', nan: 'NaN', label: '320', count: 7 }]);
    expect((await t.request('DELETE', `dashboards/${created.body.data.id}`, { apiKey: org.apiKey })).status).toBe(204);
  });

  it('lists, renames and deletes dashboards; another organization gets 404 on every route and changes nothing', async () => {
    const list = await t.request<List<Dashboard>>('GET', `dashboards?projectId=${seeded.projectId}`, { apiKey: org.apiKey });
    expect(list.body.data.map((dashboard) => dashboard.id)).toEqual([seeded.dashboard.id]);
    expect((await t.request<List<Dashboard>>('GET', 'dashboards', { apiKey: other.apiKey })).body.data).toEqual([]);

    const id = seeded.dashboard.id;
    for (const [method, path, body] of [
      ['GET', `dashboards/${id}`],
      ['GET', `dashboards/${id}/data`],
      ['PATCH', `dashboards/${id}`, { name: 'Hijacked' }],
      ['POST', `dashboards/${id}/widgets`, { title: 'x', kind: 'number', query: { source: 'alerts', measure: { fn: 'count' } } }],
      ['DELETE', `dashboards/${id}`],
    ] as const) {
      const response = await t.request<ErrorBody>(method, path, { apiKey: other.apiKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    const theirs = await t.request<ErrorBody>('POST', 'dashboards', { apiKey: other.apiKey, body: { projectId: seeded.projectId, name: 'Spy' } });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('NOT_FOUND');

    const scratch = await t.request<One<Dashboard>>('POST', 'dashboards', { apiKey: org.apiKey, body: { projectId: seeded.projectId, name: 'Scratch' } });
    expect(scratch.body.data.widgets).toEqual([]);
    const renamed = await t.request<One<Dashboard>>('PATCH', `dashboards/${scratch.body.data.id}`, { apiKey: org.apiKey, body: { name: 'Scratch 2', description: 'kept' } });
    expect(renamed.body.data).toMatchObject({ name: 'Scratch 2', description: 'kept' });
    expect((await t.request('DELETE', `dashboards/${scratch.body.data.id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect((await t.request('GET', `dashboards/${scratch.body.data.id}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await t.request<One<Dashboard>>('GET', `dashboards/${id}`, { apiKey: org.apiKey })).body.data.name).toBe('Shop health');
  });

  it('refuses a widget query that names a missing column, a wrong type, or SQL that writes or reads outside the project', async () => {
    const otherProject = await createProject(t, org, 'Elsewhere');
    projectIds.push(otherProject.id);
    const cases: [unknown, string, RegExp][] = [
      [{ source: 'alerts', measure: { fn: 'count' }, groupBy: 'colour' }, 'widgets[0].query.groupBy', /no column "colour"/],
      [{ source: 'dataset', datasetId: seeded.datasetId, measure: { fn: 'sum', column: 'region' } }, 'widgets[0].query.measure.column', /is text; sum needs/],
      [{ source: 'alerts', measure: { fn: 'count' }, groupBy: 'severity', bucket: 'day' }, 'widgets[0].query.bucket', /date or timestamp/],
      [{ source: 'alerts', measure: { fn: 'count' }, filters: [{ column: 'createdAt', op: 'gt', value: 'yesterday' }] }, 'widgets[0].query.filters[0].value', /timestamp/],
      [{ source: 'alerts', measure: { fn: 'count' }, filters: [{ column: 'severity', op: 'in', value: 'critical' }] }, 'widgets[0].query.filters[0].value', /array/],
      [{ sql: 'DELETE FROM alerts' }, 'widgets[0].query.sql', /Only a SELECT/],
      [{ sql: 'SELECT * FROM public.api_keys' }, 'widgets[0].query.sql', /outside this project/],
      [{ sql: 'SELECT * FROM sales' }, 'widgets[0].query.sql', /no table "sales"/],
    ];
    for (const [query, field, message] of cases) {
      const projectId = field.endsWith('.sql') && /sales/.test(JSON.stringify(query)) ? otherProject.id : seeded.projectId;
      const response = await t.request<ErrorBody>('POST', 'dashboards', {
        apiKey: org.apiKey,
        body: { projectId, name: 'Bad', widgets: [{ title: 'Bad', kind: 'table', query }] },
      });
      expect(response.status, JSON.stringify(query)).toBe(422);
      expect(response.body.code).toBe('VALIDATION_ERROR');
      expect(response.body.details?.[0].field, JSON.stringify(query)).toBe(field);
      expect(response.body.details?.[0].message, JSON.stringify(query)).toMatch(message);
    }
    const unsafeIdentifier = await t.request<ErrorBody>('POST', 'dashboards', {
      apiKey: org.apiKey,
      body: { projectId: seeded.projectId, name: 'Bad', widgets: [{ title: 'x', kind: 'bar', query: { source: 'alerts', measure: { fn: 'count' }, groupBy: 'severity"; DROP TABLE alerts; --' } }] },
    });
    expect(unsafeIdentifier.status).toBe(422);
    expect((await t.request<List<Dashboard>>('GET', `dashboards?projectId=${seeded.projectId}`, { apiKey: org.apiKey })).body.data).toHaveLength(1);
  });

  it("saves a chat answer's SQL as a widget, and only an answer about the same project", async () => {
    ai.fake.script({ toolCalls: [{ sql: "SELECT severity, count(*) AS n FROM alerts WHERE status = 'active' GROUP BY severity ORDER BY n DESC" }] }, { content: 'Mostly critical.' });
    const answer = await ask(t, org, seeded.projectId, 'Active alerts per severity?');
    expect(answer.status).toBe(200);
    const added = await t.request<One<Dashboard>>('POST', `dashboards/${seeded.dashboard.id}/widgets`, {
      apiKey: org.apiKey,
      body: { fromQueryId: answer.body.data.queryId, kind: 'bar' },
    });
    expect(added.status).toBe(201);
    const widget = added.body.data.widgets.at(-1);
    expect(widget).toMatchObject({ title: 'Active alerts per severity?', kind: 'bar', query: { sql: answer.body.data.sql } });
    const result = byTitle((await data(seeded.dashboard.id)).body.data.widgets, 'Active alerts per severity?');
    expect(Object.fromEntries(result.rows.map((row) => [row.severity, row.n]))).toEqual({ critical: 2, low: 2, high: 1 });

    const elsewhere = await createProject(t, org, 'Elsewhere 2');
    projectIds.push(elsewhere.id);
    const otherDashboard = await t.request<One<Dashboard>>('POST', 'dashboards', { apiKey: org.apiKey, body: { projectId: elsewhere.id, name: 'Other' } });
    const refused = await t.request<ErrorBody>('POST', `dashboards/${otherDashboard.body.data.id}/widgets`, {
      apiKey: org.apiKey,
      body: { fromQueryId: answer.body.data.queryId },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details?.[0].field).toBe('fromQueryId');
    const foreign = await t.request<ErrorBody>('POST', `dashboards/${seeded.dashboard.id}/widgets`, { apiKey: other.apiKey, body: { fromQueryId: answer.body.data.queryId } });
    expect(foreign.status).toBe(404);
  });

  it('keeps the other widgets readable when one fails at read time (its dataset was deleted)', async () => {
    const project = await createProject(t, org, 'Fragile');
    projectIds.push(project.id);
    const uploaded = await upload(t, org.apiKey, project.id, 'n\n1\n2\n', { query: { name: 'numbers' } });
    const created = await t.request<One<Dashboard>>('POST', 'dashboards', {
      apiKey: org.apiKey,
      body: {
        projectId: project.id,
        name: 'Fragile',
        widgets: [
          { title: 'Total', kind: 'number', query: { source: 'dataset', datasetId: uploaded.body.data.id, measure: { fn: 'sum', column: 'n' } } },
          { title: 'Alerts', kind: 'number', query: { source: 'alerts', measure: { fn: 'count' } } },
        ],
      },
    });
    expect(byTitle((await data(created.body.data.id)).body.data.widgets, 'Total').rows).toEqual([{ sum: 3 }]);
    await t.request('DELETE', `datasets/${uploaded.body.data.id}`, { apiKey: org.apiKey });
    const widgets = (await data(created.body.data.id)).body.data.widgets;
    expect(byTitle(widgets, 'Total').error).toMatch(/no ready dataset/);
    expect(byTitle(widgets, 'Alerts')).toMatchObject({ error: null, rows: [{ count: 0 }] });
  });

  it('names each operation in the OpenAPI document for the client libraries', async () => {
    const spec = await t.request<{ paths: Record<string, Record<string, { operationId?: string; 'x-vigil-client-method'?: string }>> }>('GET', 'openapi.json');
    const named = (path: string, method: string) => {
      const operation = spec.body.paths[path]?.[method];
      return [operation?.operationId, operation?.['x-vigil-client-method']];
    };
    expect(named('/api/v1/dashboards', 'get')).toEqual(['listDashboards', 'dashboards.list']);
    expect(named('/api/v1/dashboards', 'post')).toEqual(['createDashboard', 'dashboards.create']);
    expect(named('/api/v1/dashboards/{id}', 'patch')).toEqual(['updateDashboard', 'dashboards.update']);
    expect(named('/api/v1/dashboards/{id}/data', 'get')).toEqual(['retrieveDashboardData', 'dashboards.data']);
    expect(named('/api/v1/dashboards/{id}/widgets', 'post')).toEqual(['addDashboardWidget', 'dashboards.widgets.add']);
    expect(named('/api/v1/embed/tokens', 'post')).toEqual(['createEmbedToken', 'embed.tokens.create']);
    expect(named('/api/v1/embed/tokens/{id}', 'delete')).toEqual(['deleteEmbedToken', 'embed.tokens.delete']);
    expect(named('/api/v1/embed/settings', 'patch')).toEqual(['updateEmbedSettings', 'embed.settings.update']);
    expect(Object.keys(spec.body.paths).some((path) => path.startsWith('/embed/'))).toBe(false);
  });
});
