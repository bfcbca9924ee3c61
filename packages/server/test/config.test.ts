import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { runCli, runMain } from './support/processes.js';

const postgres = 'postgres://vigil@db.internal:5432/vigil';
const secret = 'a-secret-key-of-at-least-32-characters!!';

function problemWith(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).variable;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      siteUrl: 'http://127.0.0.1:3000',
      secretKey: undefined,
      role: 'all',
      ai: undefined,
      webhookTimeoutMs: 10_000,
      webhookRetryScheduleMs: [0, 60_000, 300_000, 900_000, 1_800_000],
      webhookAllowPrivate: false,
      connectionsAllowPrivate: false,
      maxUploadBytes: 50 * 1024 * 1024,
      uploads: { perOrganization: 2, maxWaitMs: 30_000 },
      importMaxRows: 1_000_000,
      requestTimeoutMs: 120_000,
      logLevel: 'info',
      retentionDays: 30,
      ignoreMovedToPostgres: false,
      projectSql: { poolSize: 4, maxWaitMs: 5_000 },
      trustProxy: [],
      sessionRateLimit: 600,
    });
  });

  it('reads every variable it documents', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      VIGIL_DATA_DIR: '/var/lib/vigil',
      DATABASE_URL: postgres,
      REDIS_URL: 'rediss://cache.internal:6380',
      VIGIL_SITE_URL: 'https://vigil.example.com/',
      VIGIL_SECRET_KEY: secret,
      VIGIL_ROLE: 'worker',
      AI_BASE_URL: 'https://ai.example.com/v1',
      AI_API_KEY: 'sk-test',
      AI_MODEL: 'gpt-test',
      VIGIL_WEBHOOK_TIMEOUT_MS: '2500',
      VIGIL_WEBHOOK_RETRY_SCHEDULE_MS: '0, 10, 20, 30, 40',
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      VIGIL_CONNECTIONS_ALLOW_PRIVATE: '1',
      VIGIL_MAX_UPLOAD_MB: '5',
      VIGIL_UPLOADS_PER_ORG: '3',
      VIGIL_UPLOAD_QUEUE_MS: '1500',
      VIGIL_IMPORT_MAX_ROWS: '1000',
      VIGIL_REQUEST_TIMEOUT_MS: '30000',
      VIGIL_AI_SQL_POOL_SIZE: '2',
      VIGIL_AI_SQL_QUEUE_MS: '750',
      LOG_LEVEL: 'debug',
      VIGIL_RETENTION_DAYS: '90',
      VIGIL_IGNORE_MOVED_TO_POSTGRES: 'true',
      VIGIL_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8',
      VIGIL_SESSION_RATE_LIMIT: '120',
    });
    // toMatchObject: features add their own settings beside these.
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/vigil',
      databaseUrl: postgres,
      redisUrl: 'rediss://cache.internal:6380',
      siteUrl: 'https://vigil.example.com',
      secretKey: secret,
      role: 'worker',
      ai: { baseUrl: 'https://ai.example.com/v1', apiKey: 'sk-test', model: 'gpt-test' },
      webhookTimeoutMs: 2500,
      webhookRetryScheduleMs: [0, 10, 20, 30, 40],
      webhookAllowPrivate: true,
      connectionsAllowPrivate: true,
      maxUploadBytes: 5 * 1024 * 1024,
      uploads: { perOrganization: 3, maxWaitMs: 1500 },
      importMaxRows: 1000,
      requestTimeoutMs: 30_000,
      projectSql: { poolSize: 2, maxWaitMs: 750 },
      logLevel: 'debug',
      retentionDays: 90,
      ignoreMovedToPostgres: true,
      trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'],
      sessionRateLimit: 120,
    });
  });

  it('links to the address it listens on, as the start banner shows it', () => {
    expect(loadConfig({ PORT: '8080' }).siteUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ HOST: '0.0.0.0' }).siteUrl).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ HOST: '::1' }).siteUrl).toBe('http://[::1]:3000');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ VIGIL_ROLE: 'x' }, 'VIGIL_ROLE'],
    [{ DATABASE_URL: postgres }, 'VIGIL_SECRET_KEY'],
    [{ DATABASE_URL: 'mysql://db/vigil', VIGIL_SECRET_KEY: secret }, 'DATABASE_URL'],
    [{ VIGIL_SECRET_KEY: 'short' }, 'VIGIL_SECRET_KEY'],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ VIGIL_SITE_URL: 'ftp://example.com' }, 'VIGIL_SITE_URL'],
    [{ VIGIL_WEBHOOK_RETRY_SCHEDULE_MS: '0,60000' }, 'VIGIL_WEBHOOK_RETRY_SCHEDULE_MS'],
    [{ VIGIL_WEBHOOK_RETRY_SCHEDULE_MS: '0,1,2,3,-4' }, 'VIGIL_WEBHOOK_RETRY_SCHEDULE_MS'],
    [{ VIGIL_WEBHOOK_TIMEOUT_MS: '0' }, 'VIGIL_WEBHOOK_TIMEOUT_MS'],
    [{ VIGIL_WEBHOOK_ALLOW_PRIVATE: 'yes please' }, 'VIGIL_WEBHOOK_ALLOW_PRIVATE'],
    [{ VIGIL_MAX_UPLOAD_MB: '1.5' }, 'VIGIL_MAX_UPLOAD_MB'],
    [{ AI_MODEL: 'gpt-test' }, 'AI_BASE_URL'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    [{ VIGIL_RETENTION_DAYS: '0' }, 'VIGIL_RETENTION_DAYS'],
    [{ VIGIL_RETENTION_DAYS: '30d' }, 'VIGIL_RETENTION_DAYS'],
    [{ VIGIL_AI_SQL_POOL_SIZE: '0' }, 'VIGIL_AI_SQL_POOL_SIZE'],
    [{ VIGIL_AI_SQL_QUEUE_MS: 'soon' }, 'VIGIL_AI_SQL_QUEUE_MS'],
    [{ VIGIL_TRUST_PROXY: 'true' }, 'VIGIL_TRUST_PROXY'],
    [{ VIGIL_TRUST_PROXY: '10.0.0.0/33' }, 'VIGIL_TRUST_PROXY'],
    [{ VIGIL_TRUST_PROXY: 'proxy.internal' }, 'VIGIL_TRUST_PROXY'],
    [{ VIGIL_SESSION_RATE_LIMIT: '0' }, 'VIGIL_SESSION_RATE_LIMIT'],
  ])('rejects %o, naming %s', (env, variable) => {
    expect(problemWith(env)).toBe(variable);
  });
});

describe('a process started with a bad value', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ VIGIL_ROLE: 'x' }, 'VIGIL_ROLE'],
    [{ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, 'VIGIL_SECRET_KEY'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL'],
    [{ VIGIL_WEBHOOK_RETRY_SCHEDULE_MS: '0,60000,x' }, 'VIGIL_WEBHOOK_RETRY_SCHEDULE_MS'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
  ];

  it('stops before listening, with exit code 1 and one line naming the variable (npm start and vigil serve)', async () => {
    const runs = await Promise.all(
      cases.flatMap(([env]) => [runMain({ ...env, VIGIL_DATA_DIR: '/nonexistent/vigil' }).done, runCli(['serve'], { ...env, VIGIL_DATA_DIR: '/nonexistent/vigil' })]),
    );
    runs.forEach((run, index) => {
      const variable = cases[Math.floor(index / 2)][1];
      expect(run.code, variable).toBe(1);
      expect(run.stdout, variable).toBe('');
      const lines = run.stderr.split('\n').filter(Boolean);
      expect(lines, variable).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^vigil: invalid configuration: ${variable} `));
    });
  });
});
