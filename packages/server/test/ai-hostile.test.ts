import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runModelSql } from '../src/ai/sql-runner.js';
import { newId } from '../src/platform/ids.js';
import { type AiTestApp, ask, createDatasetTable, startAiTestApp } from './support/ai.js';
import type { TestApp, TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type FakeLlm, toolResults } from './support/fake-llm.js';
import { upload } from './support/data.js';
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

  it.runIf(kind === 'pglite')('refuses a statement the planner estimates too costly, PGlite having no timeout', async () => {
    const readers = t.app.services.chat.readers;
    const tables = new Set(['numbers']);
    const runaway = await runModelSql(readers, projectId, tables, 'SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d, numbers e');
    expect(runaway).toEqual({ ok: false, error: expect.stringMatching(/^Refused: this statement is estimated at \d+ cost units, over the \d+ this question has left on the embedded database; filter or aggregate before joining\.$/) });
    const fine = await runModelSql(readers, projectId, tables, 'SELECT count(*)::int AS n FROM numbers a, numbers b');
    expect(fine).toMatchObject({ ok: true, rows: [{ n: 22_500 }] });
  });

  it.runIf(kind === 'pglite')('refuses, before it runs, a statement that does not fit what its question has left; the next question starts afresh', async () => {
    const pairs = 'SELECT count(*)::int AS n FROM numbers a, numbers b';
    fake.script({ toolCalls: Array.from({ length: 8 }, () => ({ sql: pairs })) }, { content: 'Done.' }, { toolCalls: [{ sql: pairs }] }, { content: 'Done.' });
    expect((await ask(t, org, projectId, 'Count the pairs, eight times.')).status).toBe(200);
    const results = toolResults(fake.requests[1].body);
    const ran = results.filter((result) => result.rows).length;
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(8);
    expect(results).toEqual([
      ...Array.from({ length: ran }, () => expect.objectContaining({ rows: [{ n: 22_500 }] })),
      ...Array.from({ length: 8 - ran }, () => ({ error: expect.stringMatching(/^Refused: .* over the \d+ this question has left on the embedded database/) })),
    ]);

    const next = await ask(t, org, projectId, 'Count the pairs once.');
    expect(next.body.data.rows).toEqual([{ n: 22_500 }]);
  });

  it.runIf(kind === 'pglite')('refuses the next statements of a question whose statements took its time on the embedded database', async () => {
    // Every reading of this clock is a second later than the last, so each statement seems to take at least a second.
    let now = Date.parse('2026-03-01T00:00:00.000Z');
    const slow = await startAiTestApp(kind, { clock: { now: () => new Date((now += 1000)) } });
    const asker = await slow.t.createOrg('business');
    const project = (await createProject(slow.t, asker)).id;
    try {
      slow.fake.script({ toolCalls: Array.from({ length: 6 }, () => ({ sql: 'SELECT count(*)::int AS n FROM alerts' })) }, { content: 'Done.' });
      expect((await ask(slow.t, asker, project, 'Count the alerts, six times.')).status).toBe(200);
      const results = toolResults(slow.fake.requests[1].body);
      const ran = results.filter((result) => result.rows).length;
      expect(ran).toBeGreaterThan(0);
      expect(ran).toBeLessThan(6);
      expect(results.slice(ran)).toEqual(
        Array.from({ length: 6 - ran }, () => ({ error: expect.stringMatching(/^Refused: this question's statements already took \d+ ms of the embedded database/) })),
      );
    } finally {
      await slow.stop([project]);
    }
  });

  it.runIf(kind === 'pglite')('counts what reading long texts costs, refusing before it runs a statement the planner underestimates, and runs those that read them once', async () => {
    // 80 uploaded notes of 150 KB: a regular expression over every pair reads 960 MB (the planner: a few hundred units; it ran 4 s).
    const csv = ['title,body', ...Array.from({ length: 80 }, (_, index) => `note ${index},${'lorem ipsum '.repeat(12_500)}${index}`)].join('\n');
    const uploaded = await upload(t, org.apiKey, projectId, csv, { query: { name: 'notes' } });
    expect(uploaded.body.data).toMatchObject({ status: 'ready', rowCount: 80, tableName: 'notes' });
    const readers = t.app.services.chat.readers;
    await readers.ensure(org.orgId, projectId, [{ id: uploaded.body.data.id, table: 'notes' }]);
    const tables = new Set(['notes']);
    const overBudget = /^Refused: this statement is estimated at \d+ cost units \(\d+ of them for the long values it reads\), over the 250000 this question has left on the embedded database; filter on short columns first, and read long values only in the final rows\.$/;

    for (const runaway of [
      'SELECT count(*) FROM notes a, notes b WHERE regexp_like(a.body, b.title)',
      'SELECT count(*) FROM notes a CROSS JOIN notes b WHERE md5(a.body) > b.title',
      // Renamed through a CTE and a subquery, the texts are still counted.
      'WITH "Copies" AS (SELECT body AS b FROM notes) SELECT count(*) FROM "Copies" x, (SELECT body AS c FROM notes) y WHERE upper(x.b) < y.c',
      'SELECT (SELECT count(*) FROM notes later WHERE lower(later.body) > lower(earlier.body)) FROM notes earlier',
    ]) {
      expect(await runModelSql(readers, projectId, tables, runaway)).toEqual({ ok: false, error: expect.stringMatching(overBudget) });
    }

    const readOnce: [string, unknown[]][] = [
      ["SELECT count(*)::int AS n FROM notes WHERE body LIKE '%ipsum 7'", [{ n: 1 }]],
      ['SELECT title, length(body) AS n FROM notes ORDER BY title LIMIT 2', [{ title: 'note 0', n: 150_001 }, { title: 'note 1', n: 150_001 }]],
      ['SELECT count(*)::int AS n FROM notes a JOIN notes b ON a.title = b.title WHERE a.body = b.body', [{ n: 80 }]],
      ["SELECT title, left(body, 5) AS head FROM notes WHERE title = 'note 3'", [{ title: 'note 3', head: 'lorem' }]],
    ];
    for (const [sql, rows] of readOnce) expect(await runModelSql(readers, projectId, tables, sql)).toMatchObject({ ok: true, rows });
  });

  it.runIf(kind === 'pglite')('counts what a long literal read at every row costs, but not a list of values', async () => {
    const csv = ['n', ...Array.from({ length: 100_000 }, (_, index) => String(index))].join('\n');
    const uploaded = await upload(t, org.apiKey, projectId, csv, { query: { name: 'counts' } });
    expect(uploaded.body.data).toMatchObject({ status: 'ready', rowCount: 100_000, tableName: 'counts' });
    const readers = t.app.services.chat.readers;
    await readers.ensure(org.orgId, projectId, [{ id: uploaded.body.data.id, table: 'counts' }]);
    const tables = new Set(['counts']);

    // A 17 500-character format applied to every row: about 25 s, estimated by the planner at 1 600.
    const longFormat = `SELECT count(*) FROM counts WHERE to_char(n, '${'FM9999 '.repeat(2_500)}') <> ''`;
    expect(await runModelSql(readers, projectId, tables, longFormat)).toEqual({
      ok: false,
      error: expect.stringMatching(/^Refused: this statement is estimated at \d+ cost units \(\d+ of them for the long values it reads\)/),
    });
    const listed = `SELECT count(*)::int AS n FROM counts WHERE n IN (${Array.from({ length: 2_000 }, (_, index) => index * 7).join(', ')})`;
    expect(await runModelSql(readers, projectId, tables, listed)).toMatchObject({ ok: true, rows: [{ n: 2_000 }] });
    expect(await runModelSql(readers, projectId, tables, "SELECT to_char(max(n), 'FM999G999') AS top FROM counts")).toMatchObject({ ok: true, rows: [{ top: '99,999' }] });
  });

  it.runIf(kind === 'pglite')('counts what searching a pattern in a text costs, the long row among short ones included', async () => {
    // One 150 KB text and a 75 KB pattern that matches it but for one byte, among 200 short rows:
    // searching one in the other compares every pair of bytes (strpos 7 s, LIKE 14 s), which the
    // planner estimates like any call, and an average width hides among the short rows.
    const long = 'a'.repeat(150_000);
    const csv = [
      'title,body',
      `hay,${long}`,
      `first,b${long.slice(0, 74_999)}`,
      `last,${long.slice(0, 74_999)}b`,
      ...Array.from({ length: 200 }, (_, index) => `n${index},short note ${index}`),
    ].join('\n');
    const uploaded = await upload(t, org.apiKey, projectId, csv, { query: { name: 'texts' } });
    expect(uploaded.body.data).toMatchObject({ status: 'ready', rowCount: 203, tableName: 'texts' });
    const readers = t.app.services.chat.readers;
    await readers.ensure(org.orgId, projectId, [{ id: uploaded.body.data.id, table: 'texts' }]);
    const tables = new Set(['texts']);
    const overBudget = /^Refused: this statement is estimated at \d+ cost units \(\d+ of them for the long values it reads\), over the 250000 /;

    const pair = "FROM texts a, texts b WHERE a.title = 'hay' AND b.title = 'first'";
    for (const runaway of [
      `SELECT strpos(a.body, b.body) ${pair}`,
      `SELECT position(b.body IN a.body) ${pair}`,
      `SELECT split_part(a.body, b.body, 2) = '' ${pair}`,
      `SELECT length(btrim(a.body, b.body)) ${pair}`,
      "SELECT a.body LIKE '%' || b.body || '%' FROM texts a, texts b WHERE a.title = 'hay' AND b.title = 'last'",
      "SELECT regexp_like(a.body, b.body) FROM texts a, texts b WHERE a.title = 'hay' AND b.title = 'last'",
    ]) {
      expect(await runModelSql(readers, projectId, tables, runaway)).toEqual({ ok: false, error: expect.stringMatching(overBudget) });
    }

    const searches: [string, unknown[]][] = [
      ["SELECT count(*)::int AS n FROM texts WHERE body LIKE '%note 19%'", [{ n: 11 }]],
      ["SELECT count(*)::int AS n FROM texts WHERE strpos(body, 'ab') > 0", [{ n: 1 }]],
      ["SELECT count(*)::int AS n FROM texts WHERE body ~ 'note 1[0-9]$'", [{ n: 10 }]],
      ["SELECT count(*)::int AS n FROM texts a, texts b WHERE a.title LIKE b.title || '%' AND a.title <> b.title", [{ n: 290 }]],
    ];
    for (const [sql, rows] of searches) expect(await runModelSql(readers, projectId, tables, sql)).toMatchObject({ ok: true, rows });
  });

  it.runIf(kind === 'pglite')('counts what multiplying long numbers costs, and has ln, sqrt and power compute in double precision', async () => {
    // 40 uploaded numbers of 16 000 digits: multiplying every pair takes about 3 ms a pair (5 s in all).
    const digits = (index: number) => `${'1234567890'.repeat(1_600)}${index}`;
    const csv = ['label,big,digits', ...Array.from({ length: 40 }, (_, index) => `n${index},${digits(index)},${digits(index)}`)].join('\n');
    const uploaded = await upload(t, org.apiKey, projectId, csv, { query: { name: 'huge', types: 'digits:text' } });
    expect(uploaded.body.data).toMatchObject({ status: 'ready', rowCount: 40, tableName: 'huge' });
    expect(uploaded.body.data.columns.map((column: { type: string }) => column.type)).toEqual(['text', 'numeric', 'text']);
    const readers = t.app.services.chat.readers;
    await readers.ensure(org.orgId, projectId, [{ id: uploaded.body.data.id, table: 'huge' }]);
    const tables = new Set(['huge']);
    const overBudget = /^Refused: this statement is estimated at \d+ cost units \(\d+ of them for the long values it reads\), over the 250000 /;

    for (const runaway of [
      'SELECT sum(a.big * b.big) FROM huge a, huge b',
      'SELECT sum(a.digits::numeric * b.digits::numeric) FROM huge a, huge b',
      'SELECT count(*) FROM huge a, huge b WHERE a.big / b.big > 1',
    ]) {
      expect(await runModelSql(readers, projectId, tables, runaway)).toEqual({ ok: false, error: expect.stringMatching(overBudget) });
    }
    expect(await runModelSql(readers, projectId, tables, 'SELECT ln(round(big, 1000)) FROM huge')).toEqual({
      ok: false,
      error: expect.stringMatching(/^Refused: ln\(\) computes at the precision of a numeric argument/),
    });

    expect(await runModelSql(readers, projectId, tables, "SELECT label, length(big::text) AS n, sqrt(length(digits)::float8 - 1) AS root FROM huge WHERE label = 'n7'")).toMatchObject({
      ok: true,
      rows: [{ label: 'n7', n: 16_001, root: 126.49110640673517 }],
    });
  });

  it.runIf(kind === 'postgres')('stops a statement that runs past the time limit', async () => {
    const outcome = await runModelSql(
      t.app.services.chat.readers,
      projectId,
      new Set(['numbers']),
      'SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d, numbers e',
      { rowCap: 100, statementTimeoutMs: 200 },
    );
    expect(outcome).toEqual({ ok: false, error: expect.stringMatching(/statement timeout/) });
  });
});
