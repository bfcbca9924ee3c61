import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UsageMeter } from '../src/modules/usage/meter.js';
import { newId } from '../src/platform/ids.js';
import { type AiTestApp, ask, createDatasetTable, startAiTestApp } from './support/ai.js';
import { ManualClock, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import type { FakeLlm } from './support/fake-llm.js';
import { createProject, type One } from './support/resources.js';

interface Activity {
  apiRequests: number;
  aiQuestions: number;
  tokens: number;
  exports: number;
  datasetsCreated: number;
  rowsImported: number;
}

interface Usage {
  orgId: string;
  plan: string;
  period: { start: string; end: string };
  totals: Activity;
  stored: { datasets: number; rows: number; bytes: number };
  days: (Activity & { date: string })[];
  limits: Record<string, number | null>;
}

const nothing: Activity = { apiRequests: 0, aiQuestions: 0, tokens: 0, exports: 0, datasetsCreated: 0, rowsImported: 0 };

describe.each(databaseKinds())('usage on %s', (kind) => {
  const clock = new ManualClock();
  let ai: AiTestApp;
  let fake: FakeLlm;
  let t: TestApp;
  /** Every test's projects, whose data schemas are dropped at the end. */
  const projectIds: string[] = [];

  const usage = (who: TestOrg) => t.request<One<Usage>>('GET', 'usage', { apiKey: who.apiKey });
  /** A project of the organization's, made over the API: one request counted on the clock's day. */
  const newProject = async (who: TestOrg, name?: string) => {
    const { id } = await createProject(t, who, name);
    projectIds.push(id);
    return id;
  };

  beforeAll(async () => {
    ai = await startAiTestApp(kind, { clock });
    ({ t, fake } = ai);
  });
  // Each test has organizations of its own and sets the clock: none sees another's counts, or its month.
  beforeEach(() => fake.reset());
  afterAll(() => ai.stop(projectIds));

  it('counts requests, questions and tokens per day of the month, with datasets, exports and plan limits', async () => {
    clock.set('2026-03-02T09:00:00.000Z');
    const org = await t.createOrg('business');
    const projectId = await newProject(org); // 1 request on March 2
    for (let i = 0; i < 3; i += 1) await t.request('GET', 'projects', { apiKey: org.apiKey });
    fake.script({ content: 'Nothing to compute.', promptTokens: 90, completionTokens: 10 });
    expect((await ask(t, org, projectId, 'hello')).status).toBe(200);
    await createDatasetTable(t, org.orgId, projectId, {
      id: newId('dataset'),
      name: 'sales.csv',
      table: 'sales',
      columns: [{ name: 'amount', type: 'integer', originalName: 'Amount' }],
      rows: [[1], [2], [3]],
      createdAt: clock.now(),
    });
    await t.database.db.query(
      `INSERT INTO exports (id, org_id, resource, format, status, created_at, updated_at) VALUES ($1, $2, 'alerts', 'csv', 'completed', $3, $3)`,
      [newId('export'), org.orgId, clock.now()],
    );
    expect((await t.request('GET', 'projects', { apiKey: 'svc_live_' + '0'.repeat(64) })).status).toBe(401);

    clock.set('2026-03-03T18:30:00.000Z');
    fake.script({ toolCalls: [{ sql: 'SELECT 1 AS one' }], promptTokens: 200, completionTokens: 20 }, { content: 'One.', promptTokens: 250, completionTokens: 30 });
    expect((await ask(t, org, projectId, 'one?')).status).toBe(200);

    const response = await usage(org); // itself the 7th request, on March 3
    expect(response.status).toBe(200);
    const report = response.body.data;
    expect(report.orgId).toBe(org.orgId);
    expect(report.plan).toBe('business');
    expect(report.period).toEqual({ start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' });
    expect(report.days).toEqual([
      { date: '2026-03-01', ...nothing },
      { date: '2026-03-02', apiRequests: 5, aiQuestions: 1, tokens: 100, exports: 1, datasetsCreated: 1, rowsImported: 3 },
      { date: '2026-03-03', ...nothing, apiRequests: 2, aiQuestions: 1, tokens: 500 },
    ]);
    expect(report.totals).toEqual({ apiRequests: 7, aiQuestions: 2, tokens: 600, exports: 1, datasetsCreated: 1, rowsImported: 3 });
    expect(report.stored).toEqual({ datasets: 1, rows: 3, bytes: 1000 });
    expect(report.limits).toEqual({
      requestsPerMinute: 120,
      aiQuestionsPerMonth: 20_000,
      tokensPerMonth: 50_000_000,
      datasets: 1_000,
      rowsStored: 50_000_000,
      exportsPerMonth: 10_000,
    });
  });

  it('starts a new month from zero, and shows unlimited plans as null', async () => {
    clock.set('2026-03-31T23:50:00.000Z');
    const org = await t.createOrg('business');
    for (let i = 0; i < 3; i += 1) await t.request('GET', 'projects', { apiKey: org.apiKey });
    clock.set('2026-04-01T00:10:00.000Z');
    const enterprise = await t.createOrg('enterprise', { name: 'Big' });
    const report = (await usage(enterprise)).body.data;
    expect(report.days).toEqual([{ date: '2026-04-01', ...nothing, apiRequests: 1 }]);
    expect(report.limits).toEqual({
      requestsPerMinute: 600,
      aiQuestionsPerMonth: null,
      tokensPerMonth: null,
      datasets: null,
      rowsStored: null,
      exportsPerMonth: null,
    });
    expect((await usage(org)).body.data.totals).toEqual({ ...nothing, apiRequests: 1 });
  });

  it("refuses AI questions once the month's questions or tokens are used up, until the next month", async () => {
    clock.set('2026-06-15T12:00:00.000Z');
    const org = await t.createOrg('business');
    const projectId = await newProject(org);
    const spend = (orgId: string, questions: number, tokens: number) =>
      t.database.db.query(`INSERT INTO usage_daily (org_id, day, ai_questions, tokens) VALUES ($1, '2026-06-01', $2, $3)`, [orgId, questions, tokens]);
    await spend(org.orgId, 20_000, 0);
    const refused = await ask(t, org, projectId, 'one more?');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringMatching(/20000 AI questions/) });
    expect(refused.headers.get('retry-after')).toBe(String(15.5 * 86_400));
    expect(fake.requests).toHaveLength(0);

    const enterprise = await t.createOrg('enterprise', { name: 'Unlimited' });
    const theirProject = await newProject(enterprise, 'E');
    await spend(enterprise.orgId, 10_000_000, 10_000_000_000);
    fake.script({ content: 'Still here.' });
    expect((await ask(t, enterprise, theirProject, 'more?')).status).toBe(200);

    clock.set('2026-07-01T00:00:00.000Z');
    fake.script({ content: 'New month.' });
    expect((await ask(t, org, projectId, 'one more?')).status).toBe(200);
    await t.database.db.query(`UPDATE usage_daily SET tokens = 50000000 WHERE org_id = $1 AND day = '2026-07-01'`, [org.orgId]);
    const tokens = await ask(t, org, projectId, 'and another?');
    expect(tokens.status).toBe(429);
    expect(tokens.body).toMatchObject({ error: expect.stringMatching(/50000000 AI tokens/) });
  });

  it('adds up counts flushed by several processes into one row per organization and day', async () => {
    const org = await t.createOrg('business');
    const meters = [new UsageMeter(t.database.db, 60_000), new UsageMeter(t.database.db, 60_000)];
    const at = new Date('2026-05-10T12:00:00.000Z');
    for (const meter of meters) {
      for (let i = 0; i < 1_000; i += 1) meter.countRequest(org.orgId, at);
      meter.countQuestion(org.orgId, at, 42);
      meter.countRequest('org_00000000000000000000000000', at);
    }
    await Promise.all(meters.map((meter) => meter.close()));
    const rows = await t.database.db.query(
      `SELECT org_id, to_char(day, 'YYYY-MM-DD') AS day, api_requests, ai_questions, tokens FROM usage_daily WHERE day = '2026-05-10' AND org_id IN ($1, 'org_00000000000000000000000000') ORDER BY org_id`,
      [org.orgId],
    );
    expect(rows).toEqual([{ org_id: org.orgId, day: '2026-05-10', api_requests: 2_000, ai_questions: 2, tokens: 84 }]);
  });
});
