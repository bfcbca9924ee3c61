import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AiTestApp, ask, startAiTestApp } from './support/ai.js';
import type { TestApp, TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type FakeLlm, toolResults } from './support/fake-llm.js';
import { createProject, type One } from './support/resources.js';

interface Dataset {
  id: string;
  name: string;
  status: string;
  tableName: string;
}

const salesCsv = ['Order Date,Customer,Order Value', '2026-01-05,ann,10.50', '2026-01-20,bob,29.50', '2026-02-03,ann,50', ''].join('\n');

describe.each(databaseKinds())('AI questions over uploaded datasets on %s', (kind) => {
  let ai: AiTestApp;
  let fake: FakeLlm;
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectId: string;
  let foreignProjectId: string;

  const upload = (who: TestOrg, project: string, csv: string, name: string) =>
    t.request<One<Dataset>>('POST', `projects/${project}/datasets?name=${encodeURIComponent(name)}`, {
      apiKey: who.apiKey,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });

  beforeAll(async () => {
    ai = await startAiTestApp(kind);
    ({ t, fake } = ai);
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
    projectId = (await createProject(t, org, 'Shop')).id;
    foreignProjectId = (await createProject(t, other, 'Their shop')).id;
  });
  afterAll(() => ai.stop([projectId, foreignProjectId]));
  beforeEach(() => fake.reset());

  it('answers "average order value by month in sales.csv" from an uploaded CSV', async () => {
    const uploaded = await upload(org, projectId, salesCsv, 'sales.csv');
    expect(uploaded.status).toBe(201);
    const table = uploaded.body.data.tableName;

    let prompt = '';
    fake.script(
      (request) => {
        prompt = request.messages[0].content ?? '';
        const valueColumn = /- (\w+) \([^)]*\) — originally "Order Value"/.exec(prompt)?.[1];
        const dateColumn = /- (\w+) \([^)]*\) — originally "Order Date"/.exec(prompt)?.[1];
        return {
          toolCalls: [
            {
              sql: `SELECT to_char(date_trunc('month', ${dateColumn}::date), 'YYYY-MM') AS month, round(avg(${valueColumn}::numeric), 2) AS average
                    FROM ${table} GROUP BY 1 ORDER BY 1`,
            },
          ],
        };
      },
      (request) => ({ content: `By month: ${JSON.stringify(toolResults(request)[0].rows)}` }),
    );
    const response = await ask(t, org, projectId, 'Average order value by month in sales.csv');
    expect(response.status).toBe(200);
    expect(prompt).toContain(`Table ${table} — dataset "sales.csv", 3 rows`);
    expect(response.body.data.rows).toEqual([
      { month: '2026-01', average: 20 },
      { month: '2026-02', average: 50 },
    ]);
  });

  it("cannot read another organization's uploaded dataset, even by its table name", async () => {
    const theirs = await upload(other, foreignProjectId, 'secret\nforeign-secret-value\n', 'secrets.csv');
    expect(theirs.status).toBe(201);
    const table = theirs.body.data.tableName;
    fake.script(
      { toolCalls: [{ sql: `SELECT * FROM ${table}` }, { sql: `SELECT * FROM data_${foreignProjectId.slice(5)}.${table}` }] },
      { content: 'Nothing found.' },
    );
    const response = await ask(t, org, projectId, 'What secrets are there?');
    expect(response.status).toBe(200);
    const results = toolResults(fake.requests[1].body);
    expect(results.map((result) => result.error)).toEqual([expect.stringMatching(/^Refused/), expect.stringMatching(/^Refused/)]);
    expect(JSON.stringify(fake.requests)).not.toContain('foreign-secret-value');
  });

  it('gives an uploaded alerts.csv a table name of its own, beside the alerts view', async () => {
    const uploaded = await upload(org, projectId, 'level\nwarn\n', 'alerts.csv');
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.data.tableName).toBe('alerts_2');
    fake.script({ toolCalls: [{ sql: 'SELECT level FROM alerts_2' }, { sql: 'SELECT count(*)::int AS n FROM alerts' }] }, { content: 'ok' });
    const response = await ask(t, org, projectId, 'levels?');
    expect(response.status).toBe(200);
    expect(toolResults(fake.requests[1].body).map((result) => result.rows)).toEqual([[{ level: 'warn' }], [{ n: 0 }]]);
  });

  it('sees a dataset deleted and uploaded again under the same name', async () => {
    const first = await upload(org, projectId, 'n\n1\n', 'again.csv');
    fake.script({ toolCalls: [{ sql: `SELECT count(*)::int AS n FROM ${first.body.data.tableName}` }] }, { content: 'one' });
    expect((await ask(t, org, projectId, 'count')).body.data.rows).toEqual([{ n: 1 }]);
    expect((await t.request('DELETE', `datasets/${first.body.data.id}`, { apiKey: org.apiKey })).status).toBe(204);

    const second = await upload(org, projectId, 'n\n1\n2\n', 'again.csv');
    expect(second.body.data.tableName).toBe(first.body.data.tableName);
    fake.script({ toolCalls: [{ sql: `SELECT count(*)::int AS n FROM ${second.body.data.tableName}` }] }, { content: 'two' });
    expect((await ask(t, org, projectId, 'count')).body.data.rows).toEqual([{ n: 2 }]);
  });
});
