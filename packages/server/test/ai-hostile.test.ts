import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runModelSql } from '../src/ai/sql-runner.js';
import { newId } from '../src/platform/ids.js';
import { type AiTestApp, ask, createDatasetTable, startAiTestApp } from './support/ai.js';
import type { TestApp, TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type FakeLlm, toolResults } from './support/fake-llm.js';
import { createProject } from './support/resources.js';

/** Statements a hostile or confused model might send; each must come back to it as a tool error. */
const hostile = (ids: { mainSchema: string; otherProjectSchema: string; foreignSchema: string }): [string, string][] => [
  ["another organization's project schema", `SELECT * FROM ${ids.foreignSchema}.alerts`],
  ["another project's schema of the same organization", `SELECT * FROM ${ids.otherProjectSchema}.alerts`],
  ['the main alerts table', `SELECT * FROM ${ids.mainSchema}.alerts`],
  ['the main tables unqualified', 'SELECT key_hash FROM api_keys'],
  ['pg_catalog, qualified', 'SELECT rolname, rolpassword FROM pg_catalog.pg_authid'],
  ['pg_catalog, unqualified', 'SELECT usename, passwd FROM pg_shadow'],
  ['information_schema', 'SELECT table_schema, table_name FROM information_schema.tables'],
  ['a catalog lookup through a cast', "SELECT 'pg_authid'::regclass::oid"],
  ['DELETE', 'DELETE FROM alerts'],
  ['UPDATE', "UPDATE alerts SET title = 'owned'"],
  ['INSERT', "INSERT INTO alerts (id) VALUES ('x')"],
  ['DROP', 'DROP TABLE alerts'],
  ['CREATE TABLE AS', 'CREATE TABLE loot AS SELECT * FROM alerts'],
  ['SELECT INTO', 'SELECT * INTO loot FROM alerts'],
  ['a data-modifying CTE', 'WITH gone AS (DELETE FROM alerts RETURNING *) SELECT count(*) FROM gone'],
  ['COPY to a file', "COPY alerts TO '/tmp/vigil-loot.csv'"],
  ['COPY from a program', "COPY alerts FROM PROGRAM 'id'"],
  ['multiple statements', 'SELECT 1 FROM alerts; DELETE FROM alerts'],
  ['a statement hidden after a comment', 'SELECT 1 FROM alerts /* harmless */; DROP TABLE alerts -- done'],
  ['a block comment hiding a second statement', 'SELECT 1 FROM alerts /*/ ; DELETE FROM alerts; /*/'],
  ['pg_sleep', 'SELECT pg_sleep(30)'],
  ['set_config', "SELECT set_config('role', 'postgres', false)"],
  ['current_setting', "SELECT current_setting('data_directory')"],
  ['SET ROLE', 'SET ROLE postgres'],
  ['RESET ROLE', 'RESET ROLE'],
  ['dblink', "SELECT * FROM dblink('host=127.0.0.1 dbname=test', 'SELECT 1') AS t(x int)"],
  ['pg_read_file', "SELECT pg_read_file('/etc/passwd')"],
  ['a large object import', "SELECT lo_import('/etc/passwd')"],
  ['a lock', 'SELECT * FROM alerts FOR UPDATE'],
  ['EXPLAIN ANALYZE', 'EXPLAIN ANALYZE SELECT * FROM alerts'],
  ['a transaction escape', 'COMMIT'],
  ['CALL', 'CALL anything()'],
];

describe.each(databaseKinds())('hostile SQL from the model on %s', (kind) => {
  let ai: AiTestApp;
  let fake: FakeLlm;
  let t: TestApp;
  let org: TestOrg;
  let projectId: string;
  let otherProjectId: string;
  let foreignProjectId: string;

  beforeAll(async () => {
    ai = await startAiTestApp(kind);
    ({ t, fake } = ai);
    org = await t.createOrg('business');
    const foreignOrg = await t.createOrg('enterprise', { name: 'Foreign' });
    projectId = (await createProject(t, org, 'Mine')).id;
    otherProjectId = (await createProject(t, org, 'Sibling')).id;
    foreignProjectId = (await createProject(t, foreignOrg, 'Theirs')).id;
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, title: 'Keep me', severity: 'high' } });
    // Both other projects get their schema and view, so a refusal is not merely "does not exist".
    for (const [owner, id] of [[org.orgId, otherProjectId], [foreignOrg.orgId, foreignProjectId]]) {
      await t.app.services.chat.readers.ensure(owner, id, []);
    }
  });
  afterAll(() => ai.stop([projectId, otherProjectId, foreignProjectId]));
  beforeEach(() => fake.reset());

  const schemaOf = (id: string) => `data_${id.slice('proj_'.length)}`;

  it.each(hostile({ mainSchema: '%MAIN%', otherProjectSchema: '%SIBLING%', foreignSchema: '%FOREIGN%' }))(
    'refuses %s as a tool error, and changes nothing',
    async (_name, template) => {
      const sql = template
        .replace('%MAIN%', t.database.schema ?? 'public')
        .replace('%SIBLING%', schemaOf(otherProjectId))
        .replace('%FOREIGN%', schemaOf(foreignProjectId));
      fake.script({ toolCalls: [{ sql }] }, { content: 'I could not do that.' });
      const response = await ask(t, org, projectId, 'Do something you should not.');
      expect(response.status).toBe(200);
      expect(response.body.data).not.toHaveProperty('rows');
      const [result] = toolResults(fake.requests[1].body);
      expect(result.error).toMatch(/^Refused: /);
      expect(result).not.toHaveProperty('rows');
      const alerts = await t.database.db.query<{ title: string }>('SELECT title FROM alerts');
      expect(alerts.map((alert) => alert.title)).toEqual(['Keep me']);
      expect(await t.database.db.query("SELECT 1 FROM pg_tables WHERE tablename = 'loot'")).toEqual([]);
    },
  );

  it('cuts results at the row cap and long text cells at 10 000 characters', async () => {
    await createDatasetTable(t, org.orgId, projectId, {
      id: newId('dataset'),
      name: 'numbers.csv',
      table: 'numbers',
      columns: [{ name: 'n', type: 'integer', originalName: 'N' }],
      rows: Array.from({ length: 150 }, (_, index) => [index]),
    });
    await t.app.services.chat.readers.ensure(org.orgId, projectId, [{ id: 'numbers', table: 'numbers' }]);
    const outcome = await runModelSql(t.app.services.chat.readers, projectId, new Set(['numbers']), 'SELECT n FROM numbers ORDER BY n');
    expect(outcome).toMatchObject({ ok: true, truncated: true, columns: ['n'] });
    expect(outcome.ok && outcome.rows.length).toBe(100);

    const wide = await runModelSql(t.app.services.chat.readers, projectId, new Set(['numbers']), `SELECT '${'x'.repeat(12_000)}' AS text`);
    const text = wide.ok ? String(wide.rows[0].text) : '';
    expect(text).toHaveLength(10_001);
    expect(text.endsWith('…')).toBe(true);
  });

  it('refuses, before sending it, a result row larger than its share of 16 MiB or over 100 columns, and runs text joined within the bound', async () => {
    const cell = 'w'.repeat(100_000);
    await createDatasetTable(t, org.orgId, projectId, {
      id: newId('dataset'),
      name: 'wide.csv',
      table: 'wide',
      columns: [{ name: 'w', type: 'text', originalName: 'w' }],
      rows: [[cell]],
    });
    await t.app.services.chat.readers.ensure(org.orgId, projectId, [{ id: 'wide', table: 'wide' }]);
    const readers = t.app.services.chat.readers;
    const tables = new Set(['wide']);
    expect(await runModelSql(readers, projectId, tables, 'SELECT w, w, w AS again FROM wide')).toEqual({
      ok: false,
      error: expect.stringMatching(/^Refused: a result row is 3000\d\d bytes as text, over the 166111 allowed; select fewer or shorter columns/),
    });
    expect(await runModelSql(readers, projectId, tables, `SELECT ${Array.from({ length: 101 }, () => 'w').join(', ')} FROM wide`)).toEqual({
      ok: false,
      error: 'Refused: the statement returns 101 columns; at most 100 are allowed, name the ones needed.',
    });
    const joined = await runModelSql(readers, projectId, tables, "SELECT length(w || '|' || w) AS n, left(w, 3) AS head FROM wide");
    expect(joined).toMatchObject({ ok: true, rows: [{ n: 200_001, head: 'www' }] });
  });

  if (kind === 'pglite') it('refuses, before it runs, a statement the planner estimates too costly for the embedded database', async () => {
    const readers = t.app.services.chat.readers;
    const tables = new Set(['numbers']);
    const runaway = await runModelSql(readers, projectId, tables, 'SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d, numbers e');
    expect(runaway).toEqual({ ok: false, error: expect.stringMatching(/^Refused: this statement is estimated at \d+ cost units, over the 250000 one statement may have on the embedded database; filter or aggregate before joining\.$/) });
    const fine = await runModelSql(readers, projectId, tables, 'SELECT count(*)::int AS n FROM numbers a, numbers b');
    expect(fine).toMatchObject({ ok: true, rows: [{ n: 22_500 }] });
  });

  if (kind === 'postgres') it('stops a statement that runs past the time limit', async () => {
    const outcome = await runModelSql(
      t.app.services.chat.readers,
      projectId,
      new Set(['numbers']),
      'SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d, numbers e',
      { rowCap: 100, statementTimeoutMs: 200 },
    );
    expect(outcome).toEqual({ ok: false, error: 'Stopped: the statement ran longer than 200 ms, the limit for project SQL; filter or aggregate on fewer rows.' });
  });
});
