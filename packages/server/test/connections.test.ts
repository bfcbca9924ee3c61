import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createProject, type Dataset, dropProjectSchemas, type ErrorBody, eventually } from './support/data.js';
import { databaseKinds } from './support/databases.js';
import { mysqlAvailable, mysqlSourceDatabase, postgresSourceDatabase, type SourceDatabase } from './support/sources.js';
import { needs } from './support/requirements.js';

interface Connection {
  id: string;
  name: string;
  dbType: string;
  host: string;
  port: number;
  database: string;
  username: string;
  sslMode: string;
  status: 'pending' | 'connected' | 'error';
  lastError: string | null;
  lastCheckedAt: string | null;
}

const hasMysql = await mysqlAvailable();
const password = 'sup3r-s3cret-pa55word';

describe.runIf(needs('postgres', 'PostgreSQL-only tests')).each(databaseKinds())('connections and imports on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let projectId: string;
  let pgSource: SourceDatabase;
  let pgConnection: Connection;

  beforeAll(async () => {
    t = await startTestApp(kind, { config: { connectionsAllowPrivate: true, importMaxRows: 1000 } });
    org = await t.createOrg('business');
    other = await t.createOrg('business', { name: 'Other' });
    projectId = await createProject(t, org);
    pgSource = await postgresSourceDatabase();
    await pgSource.run(`
      CREATE TABLE sales (id serial PRIMARY KEY, customer text, amount numeric(10,2), paid boolean, sold_on date, sold_at timestamptz, meta jsonb, units bigint);
      INSERT INTO sales (customer, amount, paid, sold_on, sold_at, meta, units) VALUES
        ('Ada', 12.50, true, '2026-01-02', '2026-01-02 03:04:05.123+00', '{"vip": true}', 9007199254740993),
        ('Tab\tand "quote"', 7, false, '2026-02-03', '2026-02-03 10:00:00+02', NULL, 3),
        (NULL, NULL, NULL, NULL, NULL, NULL, NULL);
      CREATE TABLE big AS SELECT g AS n FROM generate_series(1, 1001) g;`);
    pgConnection = (await create(org, { name: 'Warehouse', dbType: 'postgresql', host: '127.0.0.1', port: 5432, database: pgSource.name, username: 'postgres', password, sslMode: 'prefer' })).body.data;
  });
  afterAll(async () => {
    await dropProjectSchemas(t);
    await t.close();
    await pgSource.drop();
  });

  function create(owner: TestOrg, body: Record<string, unknown>) {
    return t.request<{ data: Connection }>('POST', 'connections', { apiKey: owner.apiKey, body });
  }
  const runJobs = async () => {
    while (await t.app.services.imports.runNext());
  };
  const importInto = async (connectionId: string, body: Record<string, unknown>) => {
    const accepted = await t.request<{ data: Dataset }>('POST', `connections/${connectionId}/import`, { apiKey: org.apiKey, body: { projectId, ...body } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body.data.status).toBe('importing');
    await runJobs();
    return (await t.request<{ data: Dataset }>('GET', `datasets/${accepted.body.data.id}`, { apiKey: org.apiKey })).body.data;
  };
  const rowsOf = async (datasetId: string) =>
    (await t.request<{ data: Record<string, unknown>[] }>('GET', `datasets/${datasetId}/rows?limit=100`, { apiKey: org.apiKey })).body.data;

  it('creates, reads, updates and deletes a connection; the password is sealed and never shown or logged', async () => {
    expect(pgConnection).toMatchObject({ name: 'Warehouse', dbType: 'postgresql', host: '127.0.0.1', port: 5432, status: 'pending', lastError: null, lastCheckedAt: null });
    expect(pgConnection.id).toMatch(/^conn_[0-9a-z]{26}$/);
    expect(pgConnection).not.toHaveProperty('password');

    const created = await create(org, { name: 'Temp', dbType: 'mysql', host: 'db.example.com', database: 'shop', username: 'reader', password });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ port: 3306, sslMode: 'prefer', status: 'pending' });
    const id = created.body.data.id;
    const renamed = await t.request<{ data: Connection }>('PATCH', `connections/${id}`, { apiKey: org.apiKey, body: { name: 'Shop' } });
    expect(renamed.body.data).toMatchObject({ name: 'Shop', host: 'db.example.com' });
    const listed = await t.request<{ data: Connection[] }>('GET', 'connections', { apiKey: org.apiKey });
    expect(listed.body.data.map((c) => c.id)).toEqual(expect.arrayContaining([id, pgConnection.id]));

    const [stored] = await t.database.db.query<{ password_sealed: string }>('SELECT password_sealed FROM db_connections WHERE id = $1', [id]);
    expect(stored.password_sealed).toMatch(/^v1\./);
    expect(stored.password_sealed).not.toContain(password);
    const events = await t.database.db.query<{ type: string; data: Record<string, unknown> }>(
      `SELECT type, data FROM events WHERE org_id = $1 AND type LIKE 'db_connection.%' ORDER BY id`,
      [org.orgId],
    );
    expect(events.filter((e) => e.data.id === id).map((e) => e.type)).toEqual(['db_connection.created', 'db_connection.updated']);
    expect(JSON.stringify(events)).not.toContain(password);

    expect((await t.request('DELETE', `connections/${id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect((await t.request('GET', `connections/${id}`, { apiKey: org.apiKey })).status).toBe(404);
    const deleted = await t.database.db.query<{ data: unknown }>(`SELECT data FROM events WHERE type = 'db_connection.deleted'`);
    expect(deleted.map((e) => e.data)).toContainEqual({ id });
    expect(t.logs.join('')).not.toContain(password);
  });

  it('rejects bad settings with per-field details', async () => {
    const bad = await t.request<ErrorBody>('POST', 'connections', {
      apiKey: org.apiKey,
      body: { name: 'x', dbType: 'oracle', host: 'h', database: 'd', username: 'u', password: 'p', sslMode: 'verify-full' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details?.map((d) => d.field).sort()).toEqual(['dbType', 'sslMode']);
    const missing = await t.request<ErrorBody>('POST', 'connections', { apiKey: org.apiKey, body: { name: 'x', dbType: 'mysql' } });
    expect(missing.body.details?.map((d) => d.field).sort()).toEqual(['database', 'host', 'password', 'username']);
  });

  it('tests a connection: connected with lastCheckedAt, or error with the reason', async () => {
    const good = await t.request<{ data: Connection }>('POST', `connections/${pgConnection.id}/test`, { apiKey: org.apiKey });
    expect(good.status).toBe(200);
    expect(good.body.data).toMatchObject({ status: 'connected', lastError: null });
    expect(Date.parse(good.body.data.lastCheckedAt!)).not.toBeNaN();

    const wrong = (await create(org, { name: 'Wrong', dbType: 'postgresql', host: '127.0.0.1', database: 'no_such_db_here', username: 'postgres', password, sslMode: 'disable' })).body.data;
    const failed = await t.request<{ data: Connection }>('POST', `connections/${wrong.id}/test`, { apiKey: org.apiKey });
    expect(failed.body.data).toMatchObject({ status: 'error', lastError: expect.stringContaining('no_such_db_here') });
    const closed = (await create(org, { name: 'Closed', dbType: 'postgresql', host: '127.0.0.1', port: 1, database: 'x', username: 'u', password })).body.data;
    const refused = await t.request<{ data: Connection }>('POST', `connections/${closed.id}/test`, { apiKey: org.apiKey });
    expect(refused.body.data).toMatchObject({ status: 'error', lastError: expect.stringContaining('ECONNREFUSED') });
  });

  it('gives up connecting after 5 s to a server that never answers', async () => {
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const hung = (await create(org, { name: 'Hung', dbType: 'postgresql', host: '127.0.0.1', port, database: 'x', username: 'u', password, sslMode: 'disable' })).body.data;
      const tested = await t.request<{ data: Connection }>('POST', `connections/${hung.id}/test`, { apiKey: org.apiKey });
      expect(tested.body.data).toMatchObject({ status: 'error', lastError: expect.stringMatching(/timeout/i) });
    } finally {
      silent.close();
    }
  });

  it('imports a PostgreSQL table into a typed dataset and announces data.db_import', async () => {
    const dataset = await importInto(pgConnection.id, { table: 'public.sales' });
    expect(dataset).toMatchObject({ name: 'sales', tableName: 'sales', status: 'ready', rowCount: 3, source: 'connection', connectionId: pgConnection.id, error: null });
    expect(dataset.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'integer'],
      ['customer', 'text'],
      ['amount', 'numeric'],
      ['paid', 'boolean'],
      ['sold_on', 'date'],
      ['sold_at', 'timestamp'],
      ['meta', 'text'],
      ['units', 'integer'],
    ]);
    const rows = await rowsOf(dataset.id);
    expect(rows[0]).toEqual({ id: 1, customer: 'Ada', amount: 12.5, paid: true, sold_on: '2026-01-02', sold_at: '2026-01-02T03:04:05.123Z', meta: '{"vip": true}', units: '9007199254740993' });
    expect(rows[1]).toMatchObject({ customer: 'Tab\tand "quote"', sold_at: '2026-02-03T08:00:00.000Z' });
    expect(rows[2]).toMatchObject({ customer: null, amount: null, paid: null });
    const [stored] = await t.database.db.query<{ units: string }>(`SELECT units::text AS units FROM data_${projectId.slice(5)}.sales WHERE id = 1`);
    expect(stored.units).toBe('9007199254740993');

    const events = await t.database.db.query<{ data: Dataset }>(`SELECT data FROM events WHERE org_id = $1 AND type = 'data.db_import'`, [org.orgId]);
    expect(events.map((e) => e.data)).toContainEqual(expect.objectContaining({ id: dataset.id, connectionId: pgConnection.id, rowCount: 3 }));
    const connection = await t.request<{ data: Connection }>('GET', `connections/${pgConnection.id}`, { apiKey: org.apiKey });
    expect(connection.body.data.status).toBe('connected');
  });

  it('imports a SELECT in a read-only transaction, and fails writes, missing tables and too many rows with the reason', async () => {
    const picked = await importInto(pgConnection.id, { query: 'SELECT customer, amount FROM sales WHERE paid; ', name: 'Paid sales' });
    expect(picked).toMatchObject({ name: 'Paid sales', tableName: 'paid_sales', status: 'ready', rowCount: 1 });
    const noColumns = await importInto(pgConnection.id, { query: 'SELECT FROM sales', name: 'counted' });
    expect(noColumns).toMatchObject({ status: 'ready', rowCount: 3, columns: [] });

    const writes = await importInto(pgConnection.id, { query: "SELECT nextval('sales_id_seq')" });
    expect(writes).toMatchObject({ status: 'failed', error: expect.stringContaining('read-only transaction') });
    const missing = await importInto(pgConnection.id, { table: 'nope' });
    expect(missing).toMatchObject({ status: 'failed', error: expect.stringContaining('"nope" does not exist') });
    const capped = await importInto(pgConnection.id, { table: 'big' });
    expect(capped).toMatchObject({ status: 'failed', error: expect.stringContaining('more than 1000 rows') });
    expect((await t.database.db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('big', 'nope')`, [`data_${projectId.slice(5)}`]))).toEqual([]);

    for (const query of ['DELETE FROM sales', 'SELECT 1; DROP TABLE sales', 'UPDATE sales SET paid = true']) {
      const refused = await t.request<ErrorBody>('POST', `connections/${pgConnection.id}/import`, { apiKey: org.apiKey, body: { projectId, query } });
      expect(refused.status, query).toBe(422);
      expect(refused.body.details?.[0].field).toBe('query');
    }
    const both = await t.request<ErrorBody>('POST', `connections/${pgConnection.id}/import`, { apiKey: org.apiKey, body: { projectId, table: 'a', query: 'SELECT 1' } });
    expect(both.status).toBe(422);
  });

  it("replaces a dataset's rows in place with datasetId, keeping the old rows when a replacement fails", async () => {
    const first = await importInto(pgConnection.id, { table: 'sales', name: 'replaced' });
    expect(first).toMatchObject({ status: 'ready', rowCount: 3, tableName: 'replaced' });
    await pgSource.run(`INSERT INTO sales (customer, amount) VALUES ('Late', 1)`);
    const again = await importInto(pgConnection.id, { table: 'sales', datasetId: first.id });
    expect(again).toMatchObject({ id: first.id, name: 'replaced', tableName: 'replaced', status: 'ready', rowCount: 4 });
    expect((await rowsOf(first.id)).map((row) => row.customer)).toEqual(['Ada', 'Tab\tand "quote"', null, 'Late']);

    const broken = await importInto(pgConnection.id, { table: 'nope', datasetId: first.id });
    expect(broken).toMatchObject({ id: first.id, status: 'failed', error: expect.stringContaining('"nope" does not exist'), rowCount: 4 });
    const kept = await t.database.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM data_${projectId.slice(5)}.replaced`);
    expect(kept).toEqual([{ n: 4 }]);
    const repaired = await importInto(pgConnection.id, { query: 'SELECT customer FROM sales WHERE amount > 5', datasetId: first.id });
    expect(repaired).toMatchObject({ status: 'ready', rowCount: 2, columns: [{ name: 'customer', originalName: 'customer', type: 'text' }], error: null });
    await pgSource.run(`DELETE FROM sales WHERE customer = 'Late'`);

    const elsewhere = await createProject(t, org, 'Elsewhere');
    const wrongProject = await t.request<ErrorBody>('POST', `connections/${pgConnection.id}/import`, {
      apiKey: org.apiKey,
      body: { projectId: elsewhere, table: 'sales', datasetId: first.id },
    });
    expect(wrongProject.status).toBe(422);
    await t.request('POST', `connections/${pgConnection.id}/import`, { apiKey: org.apiKey, body: { projectId, table: 'sales', datasetId: first.id } });
    const busy = await t.request<ErrorBody>('POST', `connections/${pgConnection.id}/import`, { apiKey: org.apiKey, body: { projectId, table: 'sales', datasetId: first.id } });
    expect(busy.status).toBe(409);
    await runJobs();
  });

  it('finishes an import after a restart: a pending job, and a running one whose worker died', async () => {
    const pending = await t.request<{ data: Dataset }>('POST', `connections/${pgConnection.id}/import`, { apiKey: org.apiKey, body: { projectId, table: 'sales', name: 'after restart' } });
    const orphan = await t.request<{ data: Dataset }>('POST', `connections/${pgConnection.id}/import`, { apiKey: org.apiKey, body: { projectId, table: 'sales', name: 'orphan' } });
    await t.database.db.query(`UPDATE dataset_imports SET state = 'running', attempts = 1, lease_until = $2 WHERE dataset_id = $1`, [orphan.body.data.id, new Date(Date.now() - 1000)]);
    await runJobs();
    for (const id of [pending.body.data.id, orphan.body.data.id]) {
      const dataset = await t.request<{ data: Dataset }>('GET', `datasets/${id}`, { apiKey: org.apiKey });
      expect(dataset.body.data).toMatchObject({ status: 'ready', rowCount: 3 });
    }
    expect(await t.database.db.query('SELECT * FROM dataset_imports')).toEqual([]);
  });

  it('fails an import whose connection was deleted, and keeps connections to their organization', async () => {
    const doomed = (await create(org, { name: 'Doomed', dbType: 'postgresql', host: '127.0.0.1', database: pgSource.name, username: 'postgres', password })).body.data;
    const accepted = await t.request<{ data: Dataset }>('POST', `connections/${doomed.id}/import`, { apiKey: org.apiKey, body: { projectId, table: 'sales', name: 'doomed' } });
    await t.request('DELETE', `connections/${doomed.id}`, { apiKey: org.apiKey });
    await runJobs();
    const dataset = await eventually(async () => {
      const got = (await t.request<{ data: Dataset }>('GET', `datasets/${accepted.body.data.id}`, { apiKey: org.apiKey })).body.data;
      return got.status === 'importing' ? undefined : got;
    });
    expect(dataset).toMatchObject({ status: 'failed', error: 'The connection was deleted before the import ran.' });

    for (const [method, path, body] of [
      ['GET', `connections/${pgConnection.id}`],
      ['PATCH', `connections/${pgConnection.id}`, { name: 'mine' }],
      ['DELETE', `connections/${pgConnection.id}`],
      ['POST', `connections/${pgConnection.id}/test`],
      ['POST', `connections/${pgConnection.id}/import`, { projectId, table: 'sales' }],
    ] as const) {
      expect((await t.request(method, path, { apiKey: other.apiKey, body })).status, `${method} ${path}`).toBe(404);
    }
    const ownConnection = (await create(other, { name: 'Theirs', dbType: 'postgresql', host: '127.0.0.1', database: pgSource.name, username: 'postgres', password })).body.data;
    const intoForeignProject = await t.request('POST', `connections/${ownConnection.id}/import`, { apiKey: other.apiKey, body: { projectId, table: 'sales' } });
    expect(intoForeignProject.status).toBe(404);
  });

  describe.runIf(hasMysql || needs('mariadb', 'imports from MariaDB'))('from MariaDB', () => {
    let source: SourceDatabase;
    let connection: Connection;

    beforeAll(async () => {
      source = await mysqlSourceDatabase();
      await source.run(`
        CREATE TABLE orders (id int PRIMARY KEY, customer varchar(50), total decimal(10,2), shipped tinyint(1), ordered_on date, ordered_at datetime(3), big bigint, notes text);
        INSERT INTO orders VALUES
          (1, 'Ada', 12.50, 1, '2026-01-02', '2026-01-02 03:04:05.123', 9007199254740993, 'first'),
          (2, 'Bob', 7.00, 0, '2026-02-03', '2026-02-03 10:00:00.000', 3, NULL),
          (3, 'Cy', NULL, NULL, NULL, NULL, NULL, '');`);
      connection = (await create(org, { name: 'Shop', dbType: 'mysql', host: '127.0.0.1', database: source.name, username: 'root', password: '', sslMode: 'prefer' })).body.data;
    });
    afterAll(() => source.drop());

    it('tests and imports a table and a SELECT with types mapped from MariaDB', async () => {
      const tested = await t.request<{ data: Connection }>('POST', `connections/${connection.id}/test`, { apiKey: org.apiKey });
      expect(tested.body.data).toMatchObject({ status: 'connected', lastError: null });

      const table = await importInto(connection.id, { table: 'orders' });
      expect(table).toMatchObject({ status: 'ready', rowCount: 3, tableName: 'orders' });
      expect(table.columns.map((c) => [c.name, c.type])).toEqual([
        ['id', 'integer'],
        ['customer', 'text'],
        ['total', 'numeric'],
        ['shipped', 'boolean'],
        ['ordered_on', 'date'],
        ['ordered_at', 'timestamp'],
        ['big', 'integer'],
        ['notes', 'text'],
      ]);
      expect((await rowsOf(table.id))[0]).toEqual({
        id: 1, customer: 'Ada', total: 12.5, shipped: true, ordered_on: '2026-01-02', ordered_at: '2026-01-02T03:04:05.123Z', big: '9007199254740993', notes: 'first',
      });

      const query = await importInto(connection.id, { query: 'SELECT customer, total * 2 AS doubled FROM orders WHERE total IS NOT NULL ORDER BY id' });
      expect(query).toMatchObject({ status: 'ready', rowCount: 2, name: 'query' });
      expect(await rowsOf(query.id)).toEqual([{ customer: 'Ada', doubled: 25 }, { customer: 'Bob', doubled: 14 }]);

      const capped = await importInto(connection.id, { query: 'SELECT seq FROM seq_1_to_1001' });
      expect(capped).toMatchObject({ status: 'failed', error: expect.stringContaining('VIGIL_IMPORT_MAX_ROWS') });
    });

    it('reports a refused login as the connection error', async () => {
      const wrong = (await create(org, { name: 'Wrong', dbType: 'mysql', host: '127.0.0.1', database: source.name, username: 'nobody_here', password, sslMode: 'disable' })).body.data;
      const tested = await t.request<{ data: Connection }>('POST', `connections/${wrong.id}/test`, { apiKey: org.apiKey });
      expect(tested.body.data).toMatchObject({ status: 'error', lastError: expect.stringContaining('Access denied') });
      expect(tested.body.data.lastError).not.toContain(password);
    });
  });
});

describe.each(databaseKinds())('connection address guard on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  it('refuses loopback, private, link-local and internal hosts unless VIGIL_CONNECTIONS_ALLOW_PRIVATE is on', async () => {
    for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '192.168.0.10', '169.254.169.254', '::1', 'db.internal']) {
      const refused = await t.request<ErrorBody>('POST', 'connections', {
        apiKey: org.apiKey,
        body: { name: 'x', dbType: 'postgresql', host, database: 'd', username: 'u', password: 'p' },
      });
      expect(refused.status, host).toBe(422);
      expect(refused.body.details?.[0].field, host).toBe('host');
      expect(refused.body.error, host).toMatch(/^host is .+; for a target on this machine or a private network in development, start Vigil with VIGIL_CONNECTIONS_ALLOW_PRIVATE=true\.$/);
    }
    const publicHost = await t.request('POST', 'connections', {
      apiKey: org.apiKey,
      body: { name: 'x', dbType: 'postgresql', host: '8.8.8.8', database: 'd', username: 'u', password: 'p' },
    });
    expect(publicHost.status).toBe(201);
  });
});
