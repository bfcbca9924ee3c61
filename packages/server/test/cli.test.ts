import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSocketPath } from '../src/admin/socket.js';
import { connectDb, type Db } from '../src/db/connect.js';

import {
  call,
  type Env,
  repoRoot,
  runCli,
  runCliJson,
  type ServerProcess,
  startServerProcess,
  tempDataDir,
  tempPostgresSchema,
} from './support/processes.js';
import { needs } from './support/requirements.js';

interface CreatedOrg {
  org: { id: string; name: string; plan: string };
  apiKey: string;
  keyId: string;
  adminUserId: string | null;
  inviteUrl: string | null;
}

const orgId = /^org_[0-9a-z]{26}$/;
const keyId = /^key_[0-9a-z]{26}$/;
const apiKey = /^svc_live_[0-9a-f]{64}$/;

function expectOneLineError(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^vigil: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

describe('vigil with a bad argument', () => {
  it.concurrent.each([
    [[], /no command given/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['org', 'create', '--plan', 'business'], /--name is required/],
    [['org', 'create', '--name', 'Acme'], /plan must be one of free, starter, pro, team, business, enterprise/],
    [['org', 'create', '--name', 'Acme', '--plan', 'gold'], /got "gold"/],
    [['org', 'create', '--name', 'Acme', '--plan', 'business', '--colour', 'red'], /--colour/],
    [['org', 'create', 'Acme', '--name', 'Acme', '--plan', 'business'], /takes 0 arguments/],
    [['org', 'set-plan', 'org_x'], /takes 2 arguments/],
    [['org', 'set-plan', 'org_x', 'platinum'], /got "platinum"/],
    [['org', 'set-rate-limit', 'org_x', 'many'], /whole number/],
    [['key', 'create'], /--org is required/],
    [['key', 'revoke'], /takes 1 argument/],
    [['migrate', 'now'], /takes no arguments/],
  ])('vigil %j prints one line and exits 1', async (args, pattern) => {
    expectOneLineError(await runCli(args, { VIGIL_DATA_DIR: '/nonexistent/vigil-cli' }), pattern);
  });

  it('npx vigil help lists the commands', async () => {
    const { stdout } = await promisify(execFile)('npx', ['vigil', 'help'], { cwd: repoRoot });
    for (const command of ['vigil serve', 'vigil migrate', 'vigil org create --name NAME --plan PLAN', 'vigil org set-plan ORG_ID PLAN', 'vigil org set-rate-limit ORG_ID N', 'vigil key create --org ORG_ID', 'vigil key revoke KEY_ID']) {
      expect(stdout).toContain(command);
    }
  });
});

describe('vigil on the embedded database, with no server running', () => {
  it('opens the data directory itself; the next process finds what it did', async () => {
    const data = await tempDataDir();
    const env = { VIGIL_DATA_DIR: data.dir };
    try {
      const created = await runCliJson<CreatedOrg>(['org', 'create', '--name', 'Offline', '--plan', 'business'], env);
      expect(created.org).toEqual({ id: expect.stringMatching(orgId), name: 'Offline', plan: 'business' });
      const key = await runCliJson<{ id: string; apiKey: string }>(['key', 'create', '--org', created.org.id], env);
      expect(key).toEqual({ id: expect.stringMatching(keyId), apiKey: expect.stringMatching(apiKey), expiresAt: null });
      expect(await runCli(['key', 'revoke', key.id], env)).toMatchObject({ code: 0, stdout: `Revoked ${key.id}.\n` });
      expect(await runCliJson(['org', 'set-plan', created.org.id, 'free'], env)).toEqual({ org: { ...created.org, plan: 'free' } });

      const db = await connectDb({ dataDir: data.dir });
      try {
        const events = await db.query<{ type: string }>('SELECT type FROM events ORDER BY id');
        expect(events.map((event) => event.type)).toEqual([
          'billing.subscription_activated',
          'api_key.created',
          'api_key.created',
          'api_key.deleted',
          'billing.subscription_cancelled',
        ]);
        const keys = await db.query('SELECT id, revoked_at IS NOT NULL AS revoked FROM api_keys ORDER BY id');
        expect(keys).toEqual([
          { id: created.keyId, revoked: false },
          { id: key.id, revoked: true },
        ]);
      } finally {
        await db.close();
      }
    } finally {
      await data.remove();
    }
  }, 180_000);
});

describe('vigil keeps the embedded data private and checks what it stores', () => {
  it('refuses --admin-email notanemail as the API does, and leaves the data directory owner-only', async () => {
    const data = await tempDataDir();
    const env = { VIGIL_DATA_DIR: path.join(data.dir, 'nested', 'data') };
    try {
      expectOneLineError(
        await runCli(['org', 'create', '--name', 'Typo', '--plan', 'business', '--admin-email', 'notanemail'], env),
        /adminEmail must match format "email"/,
      );
      // Every tenant's data is there: readable by this OS user only, what PGlite wrote included.
      const modes = await Promise.all(
        ['', 'pglite', 'pglite/PG_VERSION', 'pglite/base', 'secret.key'].map(async (entry) => [entry, (await stat(path.join(env.VIGIL_DATA_DIR, entry))).mode & 0o777]),
      );
      expect(Object.fromEntries(modes)).toEqual({ '': 0o700, pglite: 0o700, 'pglite/PG_VERSION': 0o600, 'pglite/base': 0o700, 'secret.key': 0o600 });
    } finally {
      await data.remove();
    }
  }, 300_000);
});

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('vigil against PostgreSQL', () => {
  let target: Awaited<ReturnType<typeof tempPostgresSchema>>;
  let env: Env;
  beforeAll(async () => {
    target = await tempPostgresSchema();
    env = target.env;
  });
  afterAll(() => target.drop());
  const inspect = (): Promise<Db> => connectDb({ databaseUrl: target.url });

  it('runs every command and leaves exactly what it says in the database', async () => {
      const created = await runCliJson<CreatedOrg>(['org', 'create', '--name', 'Acme Inc', '--plan', 'business', '--admin-email', 'ops@acme.test'], env);
      expect(created).toEqual({
        org: { id: expect.stringMatching(orgId), name: 'Acme Inc', plan: 'business' },
        apiKey: expect.stringMatching(apiKey),
        keyId: expect.stringMatching(keyId),
        adminUserId: expect.stringMatching(/^usr_/),
        inviteUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/welcome#token=[\w-]{43}$/),
      });
      const id = created.org.id;
      const reset = await runCliJson<{ url: string; userId: string }>(['user', 'reset-link', 'OPS@acme.test'], env);
      expect(reset).toEqual({ userId: created.adminUserId, orgId: id, url: expect.stringMatching(/\/welcome#token=[\w-]{43}$/) });
      expectOneLineError(await runCli(['user', 'reset-link', 'nobody@acme.test'], env), /^vigil: No such user with that email\.\n$/);

      const plain = await runCli(['org', 'create', '--name', 'Plain', '--plan', 'enterprise'], env);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toMatch(/^Created organization org_\w+ "Plain" on enterprise\.\nAPI key \(shown once, keep it safe\): svc_live_[0-9a-f]{64}\n$/);

      const key = await runCliJson<{ id: string; apiKey: string }>(['key', 'create', '--org', id, '--name', 'Deploy bot'], env);
      expect(key).toEqual({ id: expect.stringMatching(keyId), apiKey: expect.stringMatching(apiKey), expiresAt: null });
      expect(await runCli(['key', 'revoke', key.id], env)).toMatchObject({ code: 0, stdout: `Revoked ${key.id}.\n` });
      expect(await runCliJson(['org', 'set-plan', id, 'team'], env)).toEqual({ org: { id, name: 'Acme Inc', plan: 'team' } });
      expect(await runCliJson(['org', 'set-plan', id, 'free'], env)).toEqual({ org: { id, name: 'Acme Inc', plan: 'free' } });
      expect(await runCliJson(['org', 'set-rate-limit', id, '900'], env)).toMatchObject({ org: { id, rateLimitPerMinute: 900 } });

      expectOneLineError(await runCli(['key', 'create', '--org', 'org_00000000000000000000000000'], env), /^vigil: No such organization\.\n$/);
      expectOneLineError(await runCli(['key', 'revoke', 'key_00000000000000000000000000'], env), /^vigil: No such API key\.\n$/);
      expectOneLineError(await runCli(['org', 'set-rate-limit', id, '0'], env), /rate limit must be a whole number/);

      const db = await inspect();
      try {
        const [org] = await db.query('SELECT plan, rate_limit_per_minute FROM organizations WHERE id = $1', [id]);
        expect(org).toEqual({ plan: 'free', rate_limit_per_minute: 900 });
        const keys = await db.query<{ id: string; name: string; revoked: boolean; key_hash: string }>(
          'SELECT id, name, revoked_at IS NOT NULL AS revoked, key_hash FROM api_keys WHERE org_id = $1 ORDER BY id',
          [id],
        );
        expect(keys.map(({ id: kid, name, revoked }) => ({ id: kid, name, revoked }))).toEqual([
          { id: created.keyId, name: 'Default key', revoked: false },
          { id: key.id, name: 'Deploy bot', revoked: true },
        ]);
        const [admin] = await db.query('SELECT email, role, status FROM users WHERE org_id = $1', [id]);
        expect(admin).toMatchObject({ email: 'ops@acme.test', role: 'admin' });
        const events = await db.query<{ type: string; data: Record<string, unknown> }>('SELECT type, data FROM events WHERE org_id = $1 ORDER BY id', [id]);
        expect(events.map((event) => event.type)).toEqual([
          'user.invited',
          'billing.subscription_activated',
          'api_key.created',
          'api_key.created',
          'api_key.deleted',
          'billing.subscription_activated',
          'billing.subscription_cancelled',
        ]);
        const billing = events.filter((event) => event.type.startsWith('billing.')).map((event) => event.data);
        expect(billing).toEqual([
          { orgId: id, plan: 'business', previousPlan: null, reason: null },
          { orgId: id, plan: 'team', previousPlan: 'business', reason: null },
          { orgId: id, plan: 'free', previousPlan: 'team', reason: null },
        ]);
      } finally {
        await db.close();
      }
  }, 180_000);
});

describe('vigil while a server runs on the same embedded data directory', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let server: ServerProcess;
  let env: Env;

  beforeAll(async () => {
    data = await tempDataDir({ migrated: true });
    env = { VIGIL_DATA_DIR: data.dir };
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    await server?.stop();
    await data.remove();
  });

  it('hands its commands to the server over an owner-only socket; their effect is immediate', async () => {
    expect((await stat(adminSocketPath(data.dir))).mode & 0o777).toBe(0o600);

    const created = await runCliJson<CreatedOrg>(['org', 'create', '--name', 'Live', '--plan', 'business'], env);
    expect(created.org).toMatchObject({ id: expect.stringMatching(orgId), plan: 'business' });
    const id = created.org.id;
    expect((await call(server.url, 'GET', 'projects', { apiKey: created.apiKey })).status).toBe(200);

    const key = await runCliJson<{ id: string; apiKey: string }>(['key', 'create', '--org', id], env);
    expect((await call(server.url, 'GET', 'projects', { apiKey: key.apiKey })).status).toBe(200);

    expect((await runCli(['org', 'set-rate-limit', id, '50'], env)).code).toBe(0);
    const limited = await call(server.url, 'GET', 'projects', { apiKey: key.apiKey });
    expect(limited.headers.get('x-ratelimit-limit')).toBe('50');

    expect((await runCli(['key', 'revoke', key.id], env)).code).toBe(0);
    expect((await call(server.url, 'GET', 'projects', { apiKey: key.apiKey })).status).toBe(401);
    expect((await call(server.url, 'GET', 'projects', { apiKey: created.apiKey })).status).toBe(200);

    expect((await runCli(['org', 'set-plan', id, 'pro'], env)).code).toBe(0);
    expect((await call(server.url, 'GET', 'projects', { apiKey: created.apiKey })).status).toBe(403);

    expectOneLineError(await runCli(['key', 'revoke', 'key_00000000000000000000000000'], env), /^vigil: No such API key\.\n$/);
    expect(await runCliJson(['migrate'], env)).toEqual({ applied: [] });
  });

  it('refuses to start a second server on the same embedded data directory', async () => {
    expectOneLineError(await runCli(['serve'], { ...env, PORT: '0' }), /another Vigil server is using/);
    expect((await call(server.url, 'GET', '/readyz')).status).toBe(200);
    expect((await stat(adminSocketPath(data.dir))).isSocket()).toBe(true);
  });

  it('leaves the data directory to the next process when the server stops', async () => {
    const stopped = await server.stop();
    expect(stopped.code).toBe(0);
    await expect(stat(adminSocketPath(data.dir))).rejects.toMatchObject({ code: 'ENOENT' });
    const created = await runCliJson<CreatedOrg>(['org', 'create', '--name', 'After', '--plan', 'enterprise'], env);
    expect(created.org.plan).toBe('enterprise');
    const db = await connectDb({ dataDir: data.dir });
    try {
      const orgs = await db.query<{ name: string; plan: string }>('SELECT name, plan FROM organizations ORDER BY id');
      expect(orgs).toEqual([
        { name: 'Live', plan: 'pro' },
        { name: 'After', plan: 'enterprise' },
      ]);
    } finally {
      await db.close();
    }
  });

  it('is not blocked by the socket a crashed server leaves behind', async () => {
    const crashed = await startServerProcess(env);
    expect((await crashed.stop('SIGKILL')).code).toBeNull();
    expect((await stat(adminSocketPath(data.dir))).isSocket()).toBe(true);
    const created = await runCliJson<CreatedOrg>(['org', 'create', '--name', 'After a crash', '--plan', 'business'], env);
    expect(created.org.name).toBe('After a crash');
  });
});
