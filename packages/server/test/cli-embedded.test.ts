import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { scratchDatabase } from './support/databases.js';
import { startFakeLlm, toolResults } from './support/fake-llm.js';
import { call, childSecretKey, type Env, runCli, runCliJson, runMain, startServerProcess, tempDataDir } from './support/processes.js';
import { Receiver } from './support/webhooks/receiver.js';
import { standardSignatureValid } from './support/webhooks/signatures.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';
import { needs } from './support/requirements.js';

type Listed = { data: Record<string, unknown>[] };

function expectRefused(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^vigil: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

/** What an organization sees of its installation through the REST API. */
async function contents(url: string, apiKey: string, datasetId?: string): Promise<Record<string, unknown>> {
  const get = async (route: string) => (await call(url, 'GET', route, { apiKey })).body;
  return {
    projects: ((await get('projects?limit=100')) as Listed).data,
    alerts: ((await get('alerts?limit=100')) as Listed).data,
    webhooks: ((await get('webhooks')) as Listed).data,
    rows: datasetId ? ((await get(`datasets/${datasetId}/rows?limit=100`)) as Listed).data : [],
  };
}

async function uploadCsv(url: string, apiKey: string, projectId: string, csv: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/projects/${projectId}/datasets?name=Sales`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/csv' },
    body: csv,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

describe('bad uses of the embedded-installation commands', () => {
  const missing = { VIGIL_DATA_DIR: '/nonexistent/vigil-cli-embedded' };
  it.concurrent.each([
    [['migrate-to-postgres'], missing, /--to is required/],
    [['migrate-to-postgres', '--to', 'mysql://db/vigil'], missing, /--to must be a PostgreSQL URL/],
    [['migrate-to-postgres', '--to', 'postgres://db/vigil'], missing, /there is no embedded database in \/nonexistent\/vigil-cli-embedded/],
    [['backup'], missing, /--out is required/],
    [['backup', '--out', '/tmp/x.tar', 'extra'], missing, /"backup" takes no arguments/],
    [['restore', '--from', '/nonexistent/backup.tar'], missing, /\/nonexistent\/backup\.tar does not exist/],
    [['restore', '--from', '/etc/hostname'], missing, /\/etc\/hostname is not a Vigil backup/],
    [['backup', '--out', '/tmp/x.tar'], { DATABASE_URL: 'postgres://db/vigil', VIGIL_SECRET_KEY: childSecretKey }, /DATABASE_URL is set, but vigil backup works on an embedded installation/],
  ] as const)('vigil %j prints one line and exits 1', async (args, env, pattern) => {
    expectRefused(await runCli([...args], env), pattern);
  });
});

describe('vigil backup and restore of an embedded installation', () => {
  it('refuses while a server holds the files, then archives and restores it whole', async () => {
    const data = await tempDataDir({ migrated: true });
    const restored = await tempDataDir();
    const archive = path.join(data.dir, '..', `${path.basename(data.dir)}-backup.tar`);
    try {
      const env: Env = { VIGIL_DATA_DIR: data.dir };
      const { apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Kept', '--plan', 'business'], env);
      const server = await startServerProcess(env);
      let before: Record<string, unknown>;
      try {
        const project = await call(server.url, 'POST', 'projects', { apiKey, body: { name: 'Backed up' } });
        const projectId = (project.body.data as { id: string }).id;
        await call(server.url, 'POST', 'alerts', { apiKey, body: { projectId, title: 'Disk full', severity: 'critical' } });
        before = await contents(server.url, apiKey);
        expectRefused(await runCli(['backup', '--out', archive], env), /a Vigil server is using .*; stop it first/);
      } finally {
        expect((await server.stop()).code).toBe(0);
      }

      const backup = await runCliJson<{ file: string; includesKey: boolean }>(['backup', '--out', archive], env);
      expect(backup).toMatchObject({ file: archive, includesKey: true });
      expectRefused(await runCli(['backup', '--out', archive], env), /already exists/);
      expectRefused(await runCli(['restore', '--from', archive], env), /already holds an installation/);

      const restoredEnv: Env = { VIGIL_DATA_DIR: restored.dir };
      expect((await runCli(['restore', '--from', archive], restoredEnv)).code).toBe(0);
      expect(await readFile(path.join(restored.dir, 'secret.key'), 'utf8')).toBe(await readFile(path.join(data.dir, 'secret.key'), 'utf8'));
      const again = await startServerProcess(restoredEnv);
      try {
        expect(await contents(again.url, apiKey)).toEqual(before);
      } finally {
        expect((await again.stop()).code).toBe(0);
      }
    } finally {
      await data.remove();
      await restored.remove();
      await rm(archive, { force: true });
    }
  }, 300_000);
});

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('vigil migrate-to-postgres', () => {
  it('refuses while the server runs, then copies everything into an empty database that a server on PostgreSQL serves unchanged, questions included', async () => {
    const database = await scratchDatabase('vigil_moved');
    const to = database.url;
    const tablesOfTarget = async () => {
      const client = new pg.Client({ connectionString: to });
      await client.connect();
      try {
        const sql = `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`;
        return (await client.query<{ n: number }>(sql)).rows[0].n;
      } finally {
        await client.end();
      }
    };
    const data = await tempDataDir({ migrated: true });
    const elsewhere = await tempDataDir();
    const receiver = await Receiver.start();
    const fake = await startFakeLlm();
    const webhookEnv = { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: testTls().caFile, AI_BASE_URL: fake.baseUrl, AI_MODEL: 'gpt-test' };
    /** A question answered from the dataset's table, as the project's read-only role (a role of the database it runs on). */
    const askTotal = async (url: string, apiKey: string, projectId: string) => {
      fake.reset();
      fake.script({ toolCalls: [{ sql: 'SELECT sum(amount)::float8 AS total FROM sales' }] }, { content: 'The total is 19.5.' });
      const answered = await call(url, 'POST', 'chat', { apiKey, body: { projectId, message: 'What is the total amount?' } });
      expect(answered.status).toBe(200);
      return toolResults(fake.requests[1].body);
    };
    try {
      const env: Env = { VIGIL_DATA_DIR: data.dir };
      const { apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Moving', '--plan', 'business'], env);
      const embedded = await startServerProcess({ ...env, ...webhookEnv });
      let before: Record<string, unknown>;
      let secret: string;
      let projectId: string;
      let datasetId: string;
      try {
        const hook = await call(embedded.url, 'POST', 'webhooks', { apiKey, body: { name: 'Ops', url: receiver.url('/moved'), events: ['alert.created'] } });
        secret = (hook.body.data as { secret: string }).secret;
        projectId = ((await call(embedded.url, 'POST', 'projects', { apiKey, body: { name: 'Shop' } })).body.data as { id: string }).id;
        for (const title of ['Disk full', 'CPU hot', 'Queue stuck']) {
          await call(embedded.url, 'POST', 'alerts', { apiKey, body: { projectId, title, severity: 'high' } });
        }
        datasetId = await uploadCsv(embedded.url, apiKey, projectId, 'day,amount,note\n2026-01-01,12.5,first\n2026-01-02,7,"with, comma"\n2026-01-03,,empty\n');
        await waitFor(() => receiver.received('/moved').length, (count) => count === 3, 'the three alert.created deliveries');
        before = await contents(embedded.url, apiKey, datasetId);
        expect(await askTotal(embedded.url, apiKey, projectId)).toEqual([{ columns: ['total'], rowCount: 1, truncated: false, rows: [{ total: 19.5 }] }]);

        expectRefused(await runCli(['migrate-to-postgres', '--to', to], env), /a Vigil server is using .*; stop it first/);
        expect(await tablesOfTarget()).toBe(0);
      } finally {
        expect((await embedded.stop()).code).toBe(0);
      }

      const moved = await runCli(['migrate-to-postgres', '--to', to], env);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toMatch(/^ {2}alerts +3$/m);
      expect(moved.stdout).toMatch(new RegExp(`^ {2}data_\\w+\\.sales +3$`, 'm'));
      expect(moved.stdout).toMatch(/^ {2}webhook_deliveries +3$/m);
      expect(moved.stdout).toContain(`DATABASE_URL=${to}`);
      expect(moved.stdout).toContain(`VIGIL_SECRET_KEY="$(cat ${path.join(data.dir, 'secret.key')})"`);
      expectRefused(await runCli(['migrate-to-postgres', '--to', to], env), /the target database is not empty/);
      // DATABASE_URL forgotten: the stale embedded copy is refused, naming the target and the override.
      const stale = await runMain(env).done;
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain(`vigil: ${data.dir} was moved to PostgreSQL (${new URL(to).toString()}) by vigil migrate-to-postgres at `);
      expect(stale.stderr).toMatch(
        /^vigil: .+ at \d{4}-\d\d-\d\dT[\d:.]+Z: start with DATABASE_URL set to that database, or set VIGIL_IGNORE_MOVED_TO_POSTGRES=true to run on the old embedded copy anyway\n$/,
      );

      const secretKey = (await readFile(path.join(data.dir, 'secret.key'), 'utf8')).trim();
      expect(secretKey).not.toBe(childSecretKey);
      const postgresEnv: Env = { DATABASE_URL: to, VIGIL_SECRET_KEY: secretKey, VIGIL_DATA_DIR: elsewhere.dir };
      expect(await runCliJson(['migrate'], postgresEnv)).toEqual({ applied: [] });
      const onPostgresServer = await startServerProcess({ ...postgresEnv, ...webhookEnv });
      try {
        expect(onPostgresServer.output.stdout).toContain('Database: PostgreSQL');
        expect(await contents(onPostgresServer.url, apiKey, datasetId)).toEqual(before);
        const created = await call(onPostgresServer.url, 'POST', 'alerts', { apiKey, body: { projectId, title: 'After the move', severity: 'low' } });
        const alertId = (created.body.data as { id: string }).id;
        const [delivery] = await waitFor(
          () => receiver.received('/moved').filter((request) => request.body.includes(alertId)),
          (requests) => requests.length > 0,
          'the delivery of the alert created on PostgreSQL',
        );
        expect(standardSignatureValid(secret, delivery.headers, delivery.body)).toBe(true);
        // Roles are not copied (PostgreSQL's are the cluster's): the first question on PostgreSQL makes the project's.
        expect(await askTotal(onPostgresServer.url, apiKey, projectId)).toEqual([{ columns: ['total'], rowCount: 1, truncated: false, rows: [{ total: 19.5 }] }]);
        // Deleting the project drops that role with it, which the scratch database's drop would not.
        expect((await call(onPostgresServer.url, 'DELETE', `projects/${projectId}`, { apiKey })).status).toBe(204);
      } finally {
        expect((await onPostgresServer.stop()).code).toBe(0);
      }
    } finally {
      await fake.close();
      await receiver.close();
      await data.remove();
      await elsewhere.remove();
      await database.drop();
    }
  }, 300_000);
});
