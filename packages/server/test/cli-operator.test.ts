import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { postgresUrl } from './support/databases.js';
import { childSecretKey, type Env, repoRoot, runCli, runCliJson, runMain, startServerProcess, tempDataDir, tempPostgresSchema } from './support/processes.js';

function expectOneLineError(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^vigil: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

describe('vigil --version and --expires-in', () => {
  it('prints the version of the installed package', async () => {
    const { version } = JSON.parse(await readFile(`${repoRoot}/packages/server/package.json`, 'utf8')) as { version: string };
    const result = await runCli(['--version'], {});
    expect(result).toMatchObject({ code: 0, stdout: `vigil ${version}\n` });
  });

  it.concurrent.each(['90', '0d', '0s', 'ninety days', '3w', '99999d', '1.5h'])('refuses --expires-in %j in one line', async (value) => {
    expectOneLineError(await runCli(['key', 'create', '--org', 'org_x', '--expires-in', value], { VIGIL_DATA_DIR: '/nonexistent/vigil-cli' }), /--expires-in must be a whole number of seconds, minutes, hours or days/);
  });
});

describe(`vigil org list, key list and key create --expires-in on ${postgresUrl ? 'PostgreSQL' : 'the embedded database'}`, () => {
  it('lists organizations and keys, and makes a key that expires when asked', async () => {
    const schema = postgresUrl ? await tempPostgresSchema() : undefined;
    const data = await tempDataDir({ migrated: true });
    const env: Env = schema ? schema.env : { VIGIL_DATA_DIR: data.dir };
    try {
      const created = await runCliJson<{ org: { id: string }; keyId: string }>(['org', 'create', '--name', 'Listed', '--plan', 'business'], env);
      const before = Date.now();
      const expiring = await runCliJson<{ id: string; expiresAt: string }>(['key', 'create', '--org', created.org.id, '--name', 'CI', '--expires-in', '90d'], env);
      const ninetyDays = 90 * 86_400_000;
      expect(Date.parse(expiring.expiresAt)).toBeGreaterThanOrEqual(before + ninetyDays - 1000);
      expect(Date.parse(expiring.expiresAt)).toBeLessThanOrEqual(Date.now() + ninetyDays);

      const orgs = await runCliJson<{ data: { id: string; name: string; plan: string }[] }>(['org', 'list'], env);
      expect(orgs.data).toEqual([expect.objectContaining({ id: created.org.id, name: 'Listed', plan: 'business' })]);
      const keys = await runCliJson<{ data: { id: string; name: string; expiresAt: string | null; revokedAt: string | null }[] }>(['key', 'list', '--org', created.org.id], env);
      expect(keys.data).toEqual([
        expect.objectContaining({ id: created.keyId, name: 'Default key', expiresAt: null, revokedAt: null }),
        expect.objectContaining({ id: expiring.id, name: 'CI', expiresAt: expiring.expiresAt }),
      ]);
      expect(JSON.stringify(keys)).not.toMatch(/svc_live_[0-9a-f]{64}/);
      for (const [given, ms] of [['45s', 45_000], ['30m', 1_800_000]] as const) {
        const start = Date.now();
        const short = await runCliJson<{ expiresAt: string }>(['key', 'create', '--org', created.org.id, '--name', given, '--expires-in', given], env);
        expect(Date.parse(short.expiresAt)).toBeGreaterThanOrEqual(start + ms - 1000);
        expect(Date.parse(short.expiresAt)).toBeLessThanOrEqual(Date.now() + ms);
      }
    } finally {
      await schema?.drop();
      await data.remove();
    }
  }, 300_000);
});

describe('clear one-line errors at start, and a banner that fits', () => {
  it('names DATABASE_URL and its server when PostgreSQL cannot be reached, never the password', async () => {
    const { done } = runMain({ DATABASE_URL: 'postgres://vigil:hunter2-secret@127.0.0.1:1/vigil', VIGIL_SECRET_KEY: childSecretKey, PORT: '0' });
    const result = await done;
    expectOneLineError(result, /cannot connect to the PostgreSQL server in DATABASE_URL \(127\.0\.0\.1:1\/vigil\)/);
    expect(result.stderr + result.stdout).not.toContain('hunter2-secret');
  });

  it('invites creating an organization only when none exists, and names PORT when the port is taken', async () => {
    const data = await tempDataDir({ migrated: true });
    const other = await tempDataDir({ migrated: true });
    try {
      await runCliJson(['org', 'create', '--name', 'Exists', '--plan', 'business'], { VIGIL_DATA_DIR: data.dir });
      const server = await startServerProcess({ VIGIL_DATA_DIR: data.dir });
      try {
        expect(server.output.stdout).not.toContain('vigil org create');
        const port = new URL(server.url).port;
        const second = await runMain({ VIGIL_DATA_DIR: other.dir, PORT: port }).done;
        expectOneLineError(second, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*set PORT`));
      } finally {
        expect((await server.stop()).code).toBe(0);
      }
    } finally {
      await data.remove();
      await other.remove();
    }
  }, 300_000);
});
