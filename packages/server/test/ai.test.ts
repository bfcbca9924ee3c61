import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../src/platform/ids.js';
import { type AiTestApp, ask, createDatasetTable, startAiTestApp } from './support/ai.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type FakeLlm, toolResults } from './support/fake-llm.js';
import { createProject, type ErrorBody, type One } from './support/resources.js';

describe.each(databaseKinds())('AI questions on %s', (kind) => {
  let ai: AiTestApp;
  let fake: FakeLlm;
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectA: string;
  let projectB: string;
  let foreign: string;

  const alert = (who: TestOrg, projectId: string, title: string, severity: string, area: string) =>
    t.request('POST', 'alerts', { apiKey: who.apiKey, body: { projectId, title, severity, area } });

  const storedQueries = async () => (await t.database.db.query('SELECT id FROM queries')).length;
  const events = (type: string) =>
    t.database.db.query<{ data: Record<string, unknown> }>('SELECT data FROM events WHERE type = $1 ORDER BY id', [type]);

  beforeAll(async () => {
    ai = await startAiTestApp(kind);
    ({ t, fake } = ai);
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
    projectA = (await createProject(t, org, 'Payments')).id;
    projectB = (await createProject(t, org, 'Search')).id;
    foreign = (await createProject(t, other, 'Theirs')).id;
    for (const [title, severity, area] of [
      ['Card declines', 'critical', 'payments'],
      ['Refund backlog', 'critical', 'payments'],
      ['3DS timeouts', 'critical', 'checkout'],
      ['Slow receipts', 'low', 'email'],
    ]) {
      await alert(org, projectA, title, severity, area);
    }
    await alert(org, projectB, 'B-secret index lag', 'critical', 'search');
    await alert(other, foreign, 'Foreign-secret outage', 'critical', 'payments');
  });
  afterAll(() => ai.stop([projectA, projectB, foreign]));
  beforeEach(() => fake.reset());

  it('answers from the alerts with SQL, summing tokens over rounds and naming the model that answered', async () => {
    const sql = `SELECT area, count(*) AS critical FROM alerts
                 WHERE severity = 'critical' AND created_at >= now() - interval '7 days'
                 GROUP BY area ORDER BY critical DESC, area LIMIT 1`;
    let seenRows: unknown;
    fake.script({ toolCalls: [{ sql }], promptTokens: 200, completionTokens: 30 }, (request) => {
      seenRows = toolResults(request)[0].rows;
      return { content: 'Payments had the most critical alerts last week (2).', promptTokens: 260, completionTokens: 15, model: 'gpt-test-2025-01-01' };
    });
    const response = await ask(t, org, projectA, 'Which area had the most critical alerts last week?');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      answer: 'Payments had the most critical alerts last week (2).',
      tokens: 505,
      model: 'gpt-test-2025-01-01',
      projectId: projectA,
      rows: [{ area: 'payments', critical: 2 }],
    });
    expect(response.body.data.sql).toContain('GROUP BY area');
    expect(response.body.data.queryId).toMatch(/^qry_[0-9a-z]{26}$/);
    expect(seenRows).toEqual([{ area: 'payments', critical: 2 }]);

    const [first, second] = fake.requests;
    expect(first.authorization).toBe('Bearer sk-test-123');
    expect(first.body.model).toBe('gpt-test');
    expect(first.body.tools?.map((tool) => tool.function.name)).toEqual(['run_sql']);
    const system = first.body.messages[0].content ?? '';
    expect(system).toContain('Table alerts');
    expect(system).toContain('Card declines');
    expect(system).not.toContain('B-secret');
    expect(first.body.messages[1]).toMatchObject({ role: 'user', content: 'Which area had the most critical alerts last week?' });
    expect(second.body.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);

    const stored = await t.request<One<Record<string, unknown>>>('GET', `history/${response.body.data.queryId}`, { apiKey: org.apiKey });
    expect(stored.body.data).toMatchObject({
      id: response.body.data.queryId,
      projectId: projectA,
      question: 'Which area had the most critical alerts last week?',
      answer: response.body.data.answer,
      sql: response.body.data.sql,
      rowCount: 1,
      rows: [{ area: 'payments', critical: 2 }],
      tokens: 505,
      model: 'gpt-test-2025-01-01',
      status: 'completed',
      apiKeyId: org.keyId,
    });
    const completed = await events('query.completed');
    expect(completed.map((event) => event.data.id)).toContain(response.body.data.queryId);
    expect(completed.at(-1)?.data).not.toHaveProperty('rows');
  });

  it('answers without sql or rows when the model needs no data, and counts tokens the provider reports', async () => {
    fake.script({ content: 'Hello! Ask me about your alerts.', noUsage: true });
    const response = await ask(t, org, projectA, 'hi');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ answer: 'Hello! Ask me about your alerts.', tokens: 0, model: 'gpt-test' });
    expect(response.body.data).not.toHaveProperty('sql');
    expect(response.body.data).not.toHaveProperty('rows');
  });

  it('answers over a ready dataset, and does not offer one still importing', async () => {
    await createDatasetTable(t, org.orgId, projectA, {
      id: newId('dataset'),
      name: 'sales.csv',
      table: 'sales',
      columns: [
        { name: 'order_date', type: 'date', originalName: 'Order Date' },
        { name: 'amount', type: 'numeric', originalName: 'Amount' },
      ],
      rows: [
        ['2026-01-05', 10],
        ['2026-01-20', 30],
        ['2026-02-03', 50],
      ],
    });
    await createDatasetTable(t, org.orgId, projectA, {
      id: newId('dataset'),
      name: 'pending.csv',
      table: 'pending',
      status: 'importing',
      columns: [{ name: 'x', type: 'integer', originalName: 'x' }],
      rows: [[1]],
    });
    const sql = `SELECT to_char(date_trunc('month', order_date), 'YYYY-MM') AS month, round(avg(amount), 2) AS average
                 FROM sales GROUP BY 1 ORDER BY 1`;
    fake.script({ toolCalls: [{ sql }, { sql: 'SELECT * FROM pending' }] }, { content: 'January 20.00, February 50.00.' });
    const response = await ask(t, org, projectA, 'Average order value by month in sales.csv');
    expect(response.status).toBe(200);
    expect(response.body.data.rows).toEqual([
      { month: '2026-01', average: 20 },
      { month: '2026-02', average: 50 },
    ]);
    const system = fake.requests[0].body.messages[0].content ?? '';
    expect(system).toContain('Table sales — dataset "sales.csv", 3 rows');
    expect(system).toContain('order_date (date) — originally "Order Date"');
    expect(system).not.toContain('pending');
    const [monthly, pending] = toolResults(fake.requests[1].body);
    expect(monthly.rows).toHaveLength(2);
    expect(pending.error).toMatch(/no table "pending"/);
  });

  it("never shows project B's or another organization's data, whatever the model tries", async () => {
    const mainSchema = t.database.schema ?? 'public';
    const attempts = [
      'SELECT title FROM alerts ORDER BY title',
      `SELECT title FROM ${mainSchema}.alerts`,
      `SELECT title FROM data_${projectB.slice(5)}.alerts`,
      `SELECT title FROM data_${foreign.slice(5)}.alerts`,
      'SELECT title FROM projects',
      "SELECT title FROM alerts WHERE project_id <> '' OR true",
    ];
    fake.script({ toolCalls: attempts.map((sql) => ({ sql })) }, { content: 'done' });
    const response = await ask(t, org, projectA, 'Show me every alert title you can find, in any project.');
    expect(response.status).toBe(200);
    const results = toolResults(fake.requests[1].body);
    const seen = JSON.stringify(results);
    expect(seen).not.toContain('B-secret');
    expect(seen).not.toContain('Foreign-secret');
    expect(results[0].rows?.map((row) => row.title)).toEqual(['3DS timeouts', 'Card declines', 'Refund backlog', 'Slow receipts']);
    for (const refused of results.slice(1, 5)) expect(refused.error).toMatch(/^Refused/);
    expect(results[5].rows).toHaveLength(4);
    expect(JSON.stringify(response.body)).not.toContain('secret');
  });

  it("keeps the project's role out of everything else even when the parser check is bypassed", async () => {
    const readers = t.app.services.chat.readers;
    const mainSchema = t.database.schema ?? 'public';
    await readers.ensure(org.orgId, projectB, []);
    const attempts = [
      `SELECT title FROM ${mainSchema}.alerts`,
      `SELECT name FROM ${mainSchema}.organizations`,
      `SELECT key_hash FROM ${mainSchema}.api_keys`,
      `SELECT title FROM data_${projectB.slice(5)}.alerts`,
      `CREATE TABLE sneaky (x int)`,
      `DELETE FROM alerts`,
    ];
    for (const sql of attempts) {
      await expect(readers.read(projectA, 5_000, (tx) => tx.query(sql)), sql).rejects.toThrow(/permission denied|read-only transaction/);
    }
    const own = await readers.read(projectA, 5_000, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts'));
    expect(own[0].n).toBe(4);
  });

  it("drops the project's reader role with the project", async () => {
    const doomed = (await createProject(t, org, 'Doomed')).id;
    fake.script({ toolCalls: [{ sql: 'SELECT count(*) FROM alerts' }] }, { content: 'none' });
    expect((await ask(t, org, doomed, 'how many?')).status).toBe(200);
    const role = `vigil_read_${doomed.slice('proj_'.length)}`;
    const roleExists = async () => (await t.database.db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).length;
    expect(await roleExists()).toBe(1);
    expect((await t.request('DELETE', `projects/${doomed}`, { apiKey: org.apiKey })).status).toBe(204);
    expect(await roleExists()).toBe(0);
  });

  it('answers 404 for an unknown or foreign project and 422 for a bad body, asking the model nothing', async () => {
    const unknown = await ask(t, org, 'proj_00000000000000000000000000', 'x');
    expect(unknown.status).toBe(404);
    const theirs = await ask(t, org, foreign, 'x');
    expect(theirs.status).toBe(404);
    const empty = await t.request<ErrorBody>('POST', 'chat', { apiKey: org.apiKey, body: { message: '', projectId: projectA } });
    expect(empty.status).toBe(422);
    expect(empty.body.details?.map((detail) => detail.field)).toEqual(['message']);
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 502 AI_PROVIDER_ERROR when the provider fails, even mid-conversation, and records nothing', async () => {
    const queriesBefore = await storedQueries();
    const eventsBefore = (await events('query.completed')).length;
    fake.script({ status: 500 }, { status: 500 });
    const failed = await ask(t, org, projectA, 'anything');
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: 'AI_PROVIDER_ERROR' });

    fake.script({ toolCalls: [{ sql: 'SELECT count(*) FROM alerts' }] }, { status: 503 }, { status: 503 });
    const midway = await ask(t, org, projectA, 'anything');
    expect(midway.status).toBe(502);
    expect(await storedQueries()).toBe(queriesBefore);
    expect((await events('query.completed')).length).toBe(eventsBefore);
  });

  it('answers 502 when the provider does not answer in time', async () => {
    const queriesBefore = await storedQueries();
    fake.script({ content: 'late', delayMs: 5_000 }, { content: 'late', delayMs: 5_000 });
    const response = await ask(t, org, projectA, 'anything');
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ code: 'AI_PROVIDER_ERROR' });
    expect(await storedQueries()).toBe(queriesBefore);
  });

  it('stops after the round limit, asking for a text answer in the last round', async () => {
    const loop = { toolCalls: [{ sql: 'SELECT count(*) AS n FROM alerts' }] };
    fake.script(loop, loop, loop, loop, loop, (request) => ({ content: request.tool_choice === 'none' ? 'There are 4 alerts.' : 'tools still offered' }));
    const response = await ask(t, org, projectA, 'How many alerts?');
    expect(response.body.data).toMatchObject({ answer: 'There are 4 alerts.', rows: [{ n: 4 }], tokens: 660 });
    expect(fake.requests).toHaveLength(6);

    fake.reset();
    fake.script(loop, loop, loop, loop, loop, loop);
    const unanswered = await ask(t, org, projectA, 'How many alerts?');
    expect(unanswered.status).toBe(200);
    const record = await t.request<One<{ status: string }>>('GET', `history/${unanswered.body.data.queryId}`, { apiKey: org.apiKey });
    expect(record.body.data.status).toBe('incomplete');
  });

  it('reports malformed tool calls back to the model as errors', async () => {
    fake.script(
      { toolCalls: [{ arguments: '{not json' }, { name: 'drop_everything', arguments: '{}' }, { arguments: '{"sql": ""}' }] },
      { content: 'Sorry.' },
    );
    const response = await ask(t, org, projectA, 'x');
    expect(response.status).toBe(200);
    expect(toolResults(fake.requests[1].body).map((result) => result.error)).toEqual([
      expect.stringMatching(/not valid JSON/),
      expect.stringMatching(/Unknown tool drop_everything/),
      expect.stringMatching(/with a statement/),
    ]);
  });
});

describe.each(databaseKinds())('AI not configured on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestApp(kind, { config: { ai: undefined } });
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  it('answers 503 SERVICE_UNAVAILABLE to a valid chat request, after its body and project were checked, and still serves history', async () => {
    const project = await createProject(t, org);
    const valid = await t.request<ErrorBody>('POST', 'chat', { apiKey: org.apiKey, body: { message: 'hi', projectId: project.id } });
    expect(valid.status).toBe(503);
    expect(valid.body.code).toBe('SERVICE_UNAVAILABLE');
    const invalid = await t.request<ErrorBody>('POST', 'chat', { apiKey: org.apiKey, body: { nonsense: true } });
    expect(invalid.status).toBe(422);
    const nul = await t.request<ErrorBody>('POST', 'chat', { apiKey: org.apiKey, body: { message: 'a\u0000b', projectId: project.id } });
    expect(nul.body.details).toEqual([{ field: 'message', message: 'must not contain the NUL character (\\u0000)' }]);
    const unknownProject = await t.request<ErrorBody>('POST', 'chat', { apiKey: org.apiKey, body: { message: 'hi', projectId: 'proj_01jz0000000000000000000000' } });
    expect(unknownProject.status).toBe(404);
    const levels = t.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.msg === 'request not served' || line.msg === 'request failed');
    expect(levels.map((line) => line.level)).toEqual([40]);
    expect((await t.request('POST', 'chat', { body: { message: 'hi', projectId: project.id } })).status).toBe(401);
    expect((await t.request('GET', 'history', { apiKey: org.apiKey })).status).toBe(200);
  });
});
