import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModelSql } from '../src/ai/sql-runner.js';
import { newId } from '../src/platform/ids.js';
import { projectSchemaName } from '../src/platform/project-schema.js';
import { type AiTestApp, ask, createDatasetTable, startAiTestApp } from './support/ai.js';
import { databaseKinds, onPostgres, postgresUrl } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { type FakeLlm, type Step, toolResults } from './support/fake-llm.js';
import { createProject, type List, type Project } from './support/resources.js';
import { needs } from './support/requirements.js';

/** A promise and the function that settles it: a statement held open until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe.each(databaseKinds())('the model’s SQL, per organization, on %s', (kind) => {
  let t: TestApp;
  let heavy: TestOrg;
  let calm: TestOrg;
  let heavyProject: string;
  let calmProject: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    heavy = await t.createOrg('business', { name: 'Heavy' });
    calm = await t.createOrg('business', { name: 'Calm' });
    heavyProject = (await createProject(t, heavy)).id;
    calmProject = (await createProject(t, calm)).id;
    for (const [org, project] of [[heavy, heavyProject], [calm, calmProject]] as const) await t.app.services.chat.readers.ensure(org.orgId, project, []);
  });
  afterAll(() => t.close());

  it('one organization’s questions wait at its cap of two statements while another organization’s run and the API answers', async () => {
    const { chat } = t.app.services;
    const held = gate();
    const started: number[] = [];
    // Held before its transaction: PGlite has one connection, so a transaction held open would stop everyone.
    const statement = (n: number) => async () => {
      started.push(n);
      await held.opened;
      return chat.readers.read(heavyProject, 5_000, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts'));
    };
    const heavyQuestions = [1, 2, 3, 4, 5, 6].map((n) => chat.readers.perOrganization.run(heavy.orgId, statement(n)));
    await expect.poll(() => started.length).toBe(2);
    expect(chat.readers.perOrganization.load(heavy.orgId)).toEqual({ running: 2, waiting: 4 });

    const calmAnswer = await chat.readers.perOrganization.run(calm.orgId, () =>
      chat.readers.read(calmProject, 5_000, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts')),
    );
    expect(calmAnswer).toEqual([{ n: 0 }]);
    expect((await t.request('GET', 'projects', { apiKey: calm.apiKey })).status).toBe(200);
    expect(started).toEqual([1, 2]);

    held.open();
    expect((await Promise.all(heavyQuestions)).map((rows) => rows[0].n)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(started.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(chat.readers.perOrganization.load(heavy.orgId)).toEqual({ running: 0, waiting: 0 });
  });
});

/** A provider reply for questions asked at once: run `sql` first, answer once its result is back. */
const readsThenAnswers =
  (sql: string): Step =>
  (request) =>
    toolResults(request).length > 0 ? { content: 'Done.' } : { toolCalls: [{ sql }] };

describe.each(databaseKinds())('one organization’s questions and another organization’s requests, on %s', (kind) => {
  let ai: AiTestApp;
  let t: TestApp;
  let fake: FakeLlm;
  let calm: TestOrg;
  const projects: string[] = [];

  beforeAll(async () => {
    // The queue is long enough here that no question is turned away while the test holds the others.
    ai = await startAiTestApp(kind, { config: { projectSql: { poolSize: 4, maxWaitMs: 60_000 } } });
    ({ t, fake } = ai);
    calm = await t.createOrg('business', { name: 'Calm' });
    await createProject(t, calm, 'Calm project');
  });
  afterAll(() => ai.stop(projects));

  it('GET /projects answers while six questions wait on a slow provider, and the questions then finish', async () => {
    const heavy = await t.createOrg('business', { name: 'Heavy' });
    const project = (await createProject(t, heavy)).id;
    projects.push(project);
    const provider = gate();
    fake.reset();
    // The fake answers requests in arrival order, so each question's first request takes a held reply.
    fake.script(...Array.from({ length: 6 }, () => ({ toolCalls: [{ sql: 'SELECT count(*)::int AS n FROM alerts' }], held: provider.opened })));
    fake.script(...Array.from({ length: 6 }, () => ({ content: 'Done.' })));
    const questions = Array.from({ length: 6 }, (_, n) => ask(t, heavy, project, `Question ${n}?`));
    await expect.poll(() => fake.requests.length, { timeout: 15_000 }).toBe(6);

    const projectsList = await t.request<List<Project>>('GET', 'projects', { apiKey: calm.apiKey });
    expect(projectsList.status).toBe(200);
    expect(projectsList.body.data.map((p) => p.name)).toEqual(['Calm project']);
    expect(fake.requests).toHaveLength(6);
    expect(fake.pending()).toBe(6);

    provider.open();
    const answers = await Promise.all(questions);
    expect(answers.map((answer) => [answer.status, answer.body.data.rows])).toEqual(Array.from({ length: 6 }, () => [200, [{ n: 0 }]]));
  });

  if (kind === 'postgres') it(
    'GET /projects answers while three organizations’ questions hold every connection of the project-SQL pool',
    async () => {
      const table = `slow_${randomBytes(4).toString('hex')}`;
      const heavy = await Promise.all([1, 2, 3].map((n) => t.createOrg('business', { name: `Heavy ${n}` })));
      const heavyProjects = await Promise.all(heavy.map(async (org) => (await createProject(t, org)).id));
      projects.push(...heavyProjects);
      for (const [index, org] of heavy.entries()) {
        const dataset = newId('dataset');
        await createDatasetTable(t, org.orgId, heavyProjects[index], {
          id: dataset,
          name: `${table}.csv`,
          table,
          columns: [{ name: 'n', type: 'integer', originalName: 'n' }],
          rows: [[1]],
        });
        // Granted now, so that the reads, not the grant, are what waits on the lock below.
        await t.app.services.chat.readers.ensure(org.orgId, heavyProjects[index], [{ id: dataset, table }]);
      }
      fake.reset();
      fake.script(...Array.from({ length: 24 }, () => readsThenAnswers(`SELECT count(*)::int AS n FROM ${table}`)));
      const waitingOnLock = async () =>
        (await onPostgres((client) =>
          client.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%${table}%`]),
        )).rowCount;

      // Every question's first read (the project's sample rows) waits on this lock, holding its connection.
      const locker = new pg.Client({ connectionString: postgresUrl });
      await locker.connect();
      await locker.query('BEGIN');
      for (const project of heavyProjects) {
        await locker.query(`LOCK TABLE ${pg.escapeIdentifier(projectSchemaName(project))}.${pg.escapeIdentifier(table)} IN ACCESS EXCLUSIVE MODE`);
      }
      const questions = heavy.flatMap((org, index) => [1, 2, 3, 4].map((n) => ask(t, org, heavyProjects[index], `Question ${n}?`)));
      try {
        await expect.poll(waitingOnLock).toBe(4);
        expect(t.app.services.chat.readers.load).toEqual({ running: 4, waiting: 2 });

        const projectsList = await t.request<List<Project>>('GET', 'projects', { apiKey: calm.apiKey });
        expect(projectsList.status).toBe(200);
        expect(projectsList.body.data.map((p) => p.name)).toEqual(['Calm project']);
        expect(await waitingOnLock()).toBe(4);
        expect(fake.requests).toHaveLength(0);
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      const answers = await Promise.all(questions);
      expect(answers.map((answer) => [answer.status, answer.body.data.rows])).toEqual(Array.from({ length: 12 }, () => [200, [{ n: 1 }]]));
      expect(t.app.services.chat.readers.load).toEqual({ running: 0, waiting: 0 });
    },
  );
});

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('the project-SQL pool on postgres', () => {
  it('answers 503 with Retry-After, having asked the model nothing, when no connection frees up in time; its connections close with the server', async () => {
    const ai = await startAiTestApp('postgres', { config: { projectSql: { poolSize: 1, maxWaitMs: 50 } } });
    const { t, fake } = ai;
    const holder = await t.createOrg('business', { name: 'Holder' });
    const asker = await t.createOrg('business', { name: 'Asker' });
    const held = (await createProject(t, holder)).id;
    const asked = (await createProject(t, asker)).id;
    await t.app.services.chat.readers.ensure(holder.orgId, held, []);
    const release = gate();
    const started = gate();
    let pid = 0;
    // The pool's one connection stays taken until the test releases it.
    const holding = t.app.services.chat.readers.read(held, 5_000, async (tx) => {
      [{ pid }] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      started.open();
      await release.opened;
    });
    let stopped = false;
    try {
      await started.opened;
      const busy = await ask(t, asker, asked, 'How many alerts?');
      expect(busy.status).toBe(503);
      expect(busy.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: expect.stringMatching(/^Busy: every connection for project SQL stayed taken for 50 ms/) });
      expect(busy.headers.get('retry-after')).toBe('5');
      expect(fake.requests).toHaveLength(0);
      expect((await t.request('GET', 'projects', { apiKey: asker.apiKey })).status).toBe(200);
      // Mid-question, the model is told instead, and may try again or answer without it.
      expect(await runModelSql(t.app.services.chat.readers, asked, new Set(['alerts']), 'SELECT count(*) FROM alerts')).toEqual({
        ok: false,
        error: expect.stringMatching(/^Busy: every connection for project SQL stayed taken for 50 ms; try again in a moment\.$/),
      });

      release.open();
      await holding;
      const backends = () => onPostgres(async (client) => (await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount);
      expect(await backends()).toBe(1);
      await ai.stop([held, asked]);
      stopped = true;
      await expect.poll(backends).toBe(0);
    } finally {
      release.open();
      if (!stopped) await ai.stop([held, asked]);
    }
  });
});
