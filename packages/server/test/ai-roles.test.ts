import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { connectDb, type Db } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/platform/clock.js';
import { projectSchemaName } from '../src/platform/project-schema.js';
import { MemoryCounterStore, RateLimiter } from '../src/platform/rate-limit.js';
import { aiConfigFor } from './support/ai.js';
import { testConfig } from './support/app.js';
import { onPostgres, postgresUrl } from './support/databases.js';
import { type FakeLlm, startFakeLlm, toolResults } from './support/fake-llm.js';
import { needs } from './support/requirements.js';

const asSuperuser = (sql: string) => onPostgres((client) => client.query(sql));

/** Production databases rarely hand Vigil a superuser: the per-project roles must work with CREATEROLE alone. */
describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('AI questions as a PostgreSQL user that is not a superuser', () => {
  const suffix = randomBytes(5).toString('hex');
  const appUser = `vigil_app_${suffix}`;
  const schema = `vigil_test_${suffix}`;
  let fake: FakeLlm;
  let db: Db;
  let app: App;
  let baseUrl: string;
  let projectId = '';
  let apiKey = '';

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/api/v1/${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as { data: Record<string, unknown> } };
  };

  beforeAll(async () => {
    await asSuperuser(
      `CREATE ROLE ${appUser} LOGIN CREATEROLE; GRANT CREATE ON DATABASE ${new URL(postgresUrl ?? '').pathname.slice(1)} TO ${appUser};
       CREATE SCHEMA ${schema} AUTHORIZATION ${appUser}`,
    );
    const url = new URL(postgresUrl ?? '');
    url.username = appUser;
    url.password = '';
    db = await connectDb({ databaseUrl: url.toString(), searchPath: schema, poolSize: 3 });
    await migrate(db);
    fake = await startFakeLlm();
    app = await buildApp({ config: testConfig({ ...aiConfigFor(fake), logLevel: 'silent' }), db, clock: systemClock, limiter: new RateLimiter(new MemoryCounterStore()) });
    baseUrl = await app.http.listen({ port: 0, host: '127.0.0.1' });
    const created = await app.services.organizations.create({ name: 'Acme', plan: 'business', adminEmail: 'a@example.com' });
    apiKey = created.apiKey;
    projectId = String((await call('POST', 'projects', { name: 'P' })).body.data.id);
    await call('POST', 'alerts', { projectId, title: 'Disk full', severity: 'critical' });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await fake?.close();
    const role = `vigil_read_${projectId.slice('proj_'.length)}`;
    await asSuperuser(
      `DROP SCHEMA IF EXISTS ${projectId ? projectSchemaName(projectId) : 'none'} CASCADE; DROP SCHEMA IF EXISTS ${schema} CASCADE;
       DROP ROLE IF EXISTS ${role}; DROP OWNED BY ${appUser}; DROP ROLE IF EXISTS ${appUser}`,
    );
  });

  it('creates the project role, reads through it, and the role still cannot reach the main tables', async () => {
    fake.script({ toolCalls: [{ sql: 'SELECT title, severity FROM alerts' }, { sql: `SELECT 1 FROM ${schema}.alerts` }] }, { content: 'One.' });
    const response = await call('POST', 'chat', { message: 'alerts?', projectId });
    expect(response.status).toBe(200);
    expect(response.body.data.rows).toEqual([{ title: 'Disk full', severity: 'critical' }]);
    expect(toolResults(fake.requests[1].body)[1].error).toMatch(/^Refused/);
    await expect(
      app.services.chat.readers.read(projectId, 5_000, (tx) => tx.query(`SELECT title FROM ${schema}.alerts`)),
    ).rejects.toThrow(/permission denied/);
  });

  it('drops the role with the project', async () => {
    expect((await call('DELETE', `projects/${projectId}`)).status).toBe(204);
    expect(await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [`vigil_read_${projectId.slice('proj_'.length)}`])).toEqual([]);
  });
});
