import { isIP } from 'node:net';
import path from 'node:path';

export type ProcessRole = 'api' | 'worker' | 'all';

export interface AiConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** One provider call's limit (AI_TIMEOUT_MS); 60 s when omitted. */
  timeoutMs?: number;
}

/** Where SQL written by the model or a dashboard (run as a project's read-only role) runs. */
export interface ProjectSqlConfig {
  /** PostgreSQL: connections of the pool of its own (VIGIL_AI_SQL_POOL_SIZE); PGlite runs one statement at a time. */
  poolSize: number;
  /** The longest a statement waits for a free connection before it is answered "busy" (VIGIL_AI_SQL_QUEUE_MS). */
  maxWaitMs: number;
}

/** Uploads loading at once, per organization and server process; more wait their turn. */
export interface UploadsConfig {
  /** How many of one organization's uploads load at once (VIGIL_UPLOADS_PER_ORG). */
  perOrganization: number;
  /** The longest an upload waits for its turn before it is answered 429 (VIGIL_UPLOAD_QUEUE_MS). */
  maxWaitMs: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  siteUrl: string;
  /** Undefined only in embedded mode before the data directory supplies one. */
  secretKey: string | undefined;
  role: ProcessRole;
  ai: AiConfig | undefined;
  projectSql: ProjectSqlConfig;
  webhookTimeoutMs: number;
  webhookRetryScheduleMs: number[];
  webhookAllowPrivate: boolean;
  connectionsAllowPrivate: boolean;
  maxUploadBytes: number;
  uploads: UploadsConfig;
  importMaxRows: number;
  /** How long a client may take to send a whole request, headers and body (VIGIL_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  logLevel: string;
  /** PostgreSQL: opening a connection or waiting for a pooled one (VIGIL_DB_CONNECT_TIMEOUT_MS). */
  dbConnectTimeoutMs: number;
  /** PostgreSQL: statement_timeout, and the client's limit on a silent server (VIGIL_DB_STATEMENT_TIMEOUT_MS). */
  dbStatementTimeoutMs: number;
  /** Bearer token for GET /metrics (VIGIL_METRICS_TOKEN); unset → loopback clients only. */
  metricsToken: string | undefined;
  /** Days finished webhook deliveries (with their attempts) and exports are kept (VIGIL_RETENTION_DAYS). */
  retentionDays: number;
  /** GraphQL subscriptions: active ones per socket, and sockets per API key (VIGIL_GRAPHQL_MAX_SUBSCRIPTIONS, VIGIL_GRAPHQL_MAX_SOCKETS). */
  graphqlSubscriptions: { perSocket: number; socketsPerKey: number };
  /** Reverse proxies (addresses or CIDRs) whose X-Forwarded-For names the client (VIGIL_TRUST_PROXY); empty → none. */
  trustProxy: string[];
  /** Requests per minute per console session (VIGIL_SESSION_RATE_LIMIT). */
  sessionRateLimit: number;
  /** Start on an embedded directory that `vigil migrate-to-postgres` has moved (VIGIL_IGNORE_MOVED_TO_POSTGRES). */
  ignoreMovedToPostgres: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function retrySchedule(env: Env): number[] {
  const name = 'VIGIL_WEBHOOK_RETRY_SCHEDULE_MS';
  const raw = env[name];
  if (raw === undefined || raw === '') return [0, 60_000, 300_000, 900_000, 1_800_000];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length !== 5 || parts.some((part) => !/^\d+$/.test(part))) {
    throw new ConfigError(name, `must be five comma-separated whole numbers of milliseconds, got "${raw}"`);
  }
  return parts.map(Number);
}

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

function trustedProxies(env: Env): string[] {
  const name = 'VIGIL_TRUST_PROXY';
  const entries = (env[name] ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const wrong = entries.find((entry) => !isAddressOrCidr(entry));
  if (wrong !== undefined) throw new ConfigError(name, `must be comma-separated IP addresses or CIDRs such as 10.0.0.0/8,127.0.0.1, got "${wrong}"`);
  return entries;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: Env): string {
  const level = env.LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!logLevels.includes(level)) throw new ConfigError('LOG_LEVEL', `must be one of ${logLevels.join(', ')}, got "${env.LOG_LEVEL}"`);
  return level;
}

function aiConfig(env: Env): AiConfig | undefined {
  const baseUrl = url(env, 'AI_BASE_URL', ['http:', 'https:']);
  const model = env.AI_MODEL?.trim() || undefined;
  if (!baseUrl && !model) return undefined;
  if (!baseUrl) throw new ConfigError('AI_BASE_URL', 'must be set when AI_MODEL is set');
  if (!model) throw new ConfigError('AI_MODEL', 'must be set when AI_BASE_URL is set');
  return { baseUrl, model, apiKey: env.AI_API_KEY ?? '', timeoutMs: integer(env, 'AI_TIMEOUT_MS', 60_000, 1, 600_000) };
}

/** The host of the links Vigil prints by default: the address it listens on, as its start banner shows it. */
function linkHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65_535);
  const host = env.HOST?.trim() || '127.0.0.1';
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const secretKey = env.VIGIL_SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.length < 32) {
    throw new ConfigError('VIGIL_SECRET_KEY', 'must be at least 32 characters long');
  }
  if (databaseUrl && !secretKey) {
    throw new ConfigError('VIGIL_SECRET_KEY', 'is required when DATABASE_URL is set (32 or more random characters)');
  }
  const role = (env.VIGIL_ROLE?.trim() || 'all') as ProcessRole;
  if (!['api', 'worker', 'all'].includes(role)) {
    throw new ConfigError('VIGIL_ROLE', `must be api, worker or all, got "${env.VIGIL_ROLE}"`);
  }
  const siteUrl = (url(env, 'VIGIL_SITE_URL', ['http:', 'https:']) ?? `http://${linkHost(host)}:${port}`).replace(/\/+$/, '');
  return {
    port,
    host,
    dataDir: path.resolve(env.VIGIL_DATA_DIR?.trim() || './data'),
    databaseUrl,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    siteUrl,
    secretKey,
    role,
    ai: aiConfig(env),
    projectSql: {
      poolSize: integer(env, 'VIGIL_AI_SQL_POOL_SIZE', 4, 1, 100),
      maxWaitMs: integer(env, 'VIGIL_AI_SQL_QUEUE_MS', 5_000, 0, 600_000),
    },
    webhookTimeoutMs: integer(env, 'VIGIL_WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    graphqlSubscriptions: {
      perSocket: integer(env, 'VIGIL_GRAPHQL_MAX_SUBSCRIPTIONS', 100, 1, 10_000),
      socketsPerKey: integer(env, 'VIGIL_GRAPHQL_MAX_SOCKETS', 50, 1, 100_000),
    },
    webhookRetryScheduleMs: retrySchedule(env),
    webhookAllowPrivate: boolean(env, 'VIGIL_WEBHOOK_ALLOW_PRIVATE'),
    connectionsAllowPrivate: boolean(env, 'VIGIL_CONNECTIONS_ALLOW_PRIVATE'),
    maxUploadBytes: integer(env, 'VIGIL_MAX_UPLOAD_MB', 50, 1, 10_240) * 1024 * 1024,
    uploads: {
      perOrganization: integer(env, 'VIGIL_UPLOADS_PER_ORG', 2, 1, 100),
      maxWaitMs: integer(env, 'VIGIL_UPLOAD_QUEUE_MS', 30_000, 0, 600_000),
    },
    importMaxRows: integer(env, 'VIGIL_IMPORT_MAX_ROWS', 1_000_000, 1, 100_000_000),
    requestTimeoutMs: integer(env, 'VIGIL_REQUEST_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    logLevel: logLevel(env),
    dbConnectTimeoutMs: integer(env, 'VIGIL_DB_CONNECT_TIMEOUT_MS', 3_000, 100, 600_000),
    dbStatementTimeoutMs: integer(env, 'VIGIL_DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    metricsToken: env.VIGIL_METRICS_TOKEN || undefined,
    retentionDays: integer(env, 'VIGIL_RETENTION_DAYS', 30, 1, 36_500),
    trustProxy: trustedProxies(env),
    sessionRateLimit: integer(env, 'VIGIL_SESSION_RATE_LIMIT', 600, 1, 1_000_000),
    ignoreMovedToPostgres: boolean(env, 'VIGIL_IGNORE_MOVED_TO_POSTGRES'),
  };
}
