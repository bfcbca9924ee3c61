import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDb } from '../src/db/connect.js';
import { StatementStopped } from '../src/db/embedded-thread.js';
import { DatabaseUnavailable } from '../src/db/unavailable.js';
import { consoleDist } from '../src/console/serve.js';
import { newId } from '../src/platform/ids.js';
import { type AiTestApp, ask, createDatasetTable, startAiTestApp } from './support/ai.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import type { WidgetResult } from './support/dashboards.js';
import { toolResults } from './support/fake-llm.js';
import { tempDataDir } from './support/processes.js';
import { createProject, type One } from './support/resources.js';

/**
 * A regular expression over every pair of 50 texts of 192 KB, each read eight times over: the
 * planner prices it like any call (well under its cap), and it runs for tens of seconds (the pairs
 * read once took 4–6 s on 2 cores).
 */
const runaway = `SELECT count(*) AS n FROM notes a, notes b WHERE (${Array(8).fill('a.body').join(' || ')}) ~ (b.title || '$')`;

describe('a runaway statement on the embedded database', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let ai: AiTestApp;
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectId: string;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    data = await tempDataDir({ migrated: true });
    // The database's own limit is long: what stops the runaway is project SQL's shorter limit (5 s).
    ai = await startAiTestApp('pglite', { clock, database: { dataDir: data.dir, statementTimeoutMs: 60_000 } });
    t = ai.t;
    org = await t.createOrg('business');
    other = await t.createOrg('business', { name: 'Bystander' });
    projectId = (await createProject(t, org)).id;
    await createDatasetTable(t, org.orgId, projectId, {
      id: newId('dataset'),
      name: 'notes.csv',
      table: 'notes',
      columns: [
        { name: 'title', type: 'text', originalName: 'title' },
        { name: 'body', type: 'text', originalName: 'body' },
      ],
      rows: Array.from({ length: 50 }, (_, index) => [`note ${index}`, `${'lorem ipsum '.repeat(16_000)}${index}`]),
    });
  });
  afterAll(async () => {
    await ai.stop([projectId]);
    await data.remove();
  });

  it('is stopped at the limit of widget SQL, the widget says so, and the organization is paused from project SQL for 5 minutes while others go on', async () => {
    const created = await t.request<One<{ id: string }>>('POST', 'dashboards', {
      apiKey: org.apiKey,
      body: { projectId, name: 'Notes', widgets: [{ title: 'Pairs', kind: 'table', query: { sql: runaway } }] },
    });
    expect(created.status).toBe(201);
    const read = await t.request<One<{ widgets: WidgetResult[] }>>('GET', `dashboards/${created.body.data.id}/data`, { apiKey: org.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.data.widgets[0]).toMatchObject({
      rows: [],
      error: 'Stopped: the statement ran longer than 5000 ms, the limit for project SQL, and the embedded database had to restart; this organization\'s project SQL is paused for 5 minutes.',
    });

    // The database is back for everyone, its data whole.
    const bystander = await t.request<{ data: unknown[] }>('GET', 'alerts', { apiKey: other.apiKey });
    expect(bystander.status).toBe(200);
    const [{ n }] = await t.database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM datasets');
    expect(n).toBe(1);

    // The organization's project SQL is paused: a question is turned away before the model is asked anything.
    ai.fake.reset();
    const paused = await ask(t, org, projectId, 'How many pairs match?');
    expect(paused.status).toBe(503);
    expect(paused.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: expect.stringMatching(/^Refused: a statement of this organization ran past its time limit and was stopped.*paused for this organization for 300 more seconds\.$/) });
    expect(paused.headers.get('retry-after')).toBe('300');
    expect(ai.fake.requests).toHaveLength(0);
    const again = await t.request<One<{ widgets: WidgetResult[] }>>('GET', `dashboards/${created.body.data.id}/data`, { apiKey: org.apiKey });
    expect(again.body.data.widgets[0].error).toMatch(/^Refused: a statement of this organization ran past its time limit/);
  });

  it('is stopped when the model sends it, and the model is told why', async () => {
    clock.advance(5 * 60_000);
    ai.fake.reset();
    ai.fake.script({ toolCalls: [{ sql: runaway }] }, { content: 'That comparison is too large to run.' });
    const answered = await ask(t, org, projectId, 'How many pairs match?');
    expect(answered.status).toBe(200);
    expect(answered.body.data.answer).toBe('That comparison is too large to run.');
    expect(toolResults(ai.fake.requests[1].body)).toEqual([{ error: expect.stringMatching(/^Stopped: the statement ran longer than 5000 ms, the limit for project SQL/) }]);
  });
});

describe('the embedded database in a thread of its own', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t.close());

  it('leaves the health check, the console and the embed script answering while a long statement runs', async () => {
    let finished = false;
    const long = t.database.db.query('SELECT pg_sleep(4)').then(() => {
      finished = true;
    });
    const [asset] = (await readdir(path.join(consoleDist, 'assets'))).filter((name) => name.endsWith('.js'));
    for (const url of ['/healthz', `/assets/${asset}`, '/embed/sdk.js']) {
      const response = await fetch(`${t.baseUrl}${url}`);
      expect(response.status, url).toBe(200);
      await response.arrayBuffer();
      expect(finished, `${url} answered only once the statement had finished`).toBe(false);
    }
    await long;
  });
});

describe('stopping the embedded database mid-write', () => {
  it('keeps every committed row, none of the stopped statement, and LISTEN goes on', async () => {
    const data = await tempDataDir({ migrated: true });
    const db = await connectDb({ dataDir: data.dir, statementTimeoutMs: 1_500 });
    try {
      await db.exec('CREATE TABLE writes (n integer PRIMARY KEY, at text)');
      const heard: string[] = [];
      let resubscribed!: () => void;
      const back = new Promise<void>((resolve) => (resubscribed = resolve));
      await db.listen('writes', (payload) => heard.push(payload), { onResubscribed: () => resubscribed() });

      for (let n = 1; n <= 100; n += 1) await db.query('INSERT INTO writes (n, at) VALUES ($1, $2)', [n, 'committed']);
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO writes (n, at) SELECT g, 'transaction' FROM generate_series(101, 200) g");
      });
      // One statement writing rows for far longer than the limit, in a transaction that holds the
      // database's one session, and a statement sent while it does, which waits behind it.
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const stopped = db
        .transaction(async (tx) => {
          await tx.query('SELECT 1');
          holding();
          await tx.query("INSERT INTO writes (n, at) SELECT g, 'stopped' FROM generate_series(1000, 1000000000) g");
        })
        .catch((error: unknown) => error);
      await held;
      const behind = db.query('SELECT 1').catch((error: unknown) => error);
      expect(await stopped).toBeInstanceOf(StatementStopped);
      expect(await behind).toBeInstanceOf(DatabaseUnavailable);

      const rows = await db.query<{ at: string; count: number }>('SELECT at, count(*)::int AS count FROM writes GROUP BY at ORDER BY at');
      expect(rows).toEqual([
        { at: 'committed', count: 100 },
        { at: 'transaction', count: 100 },
      ]);
      await back;
      await db.query("SELECT pg_notify('writes', 'after the restart')");
      expect(heard).toEqual(['after the restart']);
    } finally {
      await db.close();
      await data.remove();
    }
  });
});
