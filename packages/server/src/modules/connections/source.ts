import { isIP } from 'node:net';
import type { ColumnType } from '../../data/column-types.js';
import type { TableRecord } from '../../data/table-record.js';
import { blockedReason, checkWebhookUrl, systemResolveAll, UrlRejectedError, withDevelopmentHint } from '../../webhooks/url-guard.js';
import { invalid } from '../../platform/errors.js';
import type { DbType, SslMode } from './schema.js';

export const connectTimeoutMs = 5000;
export const statementTimeoutMs = 120_000;

export interface SourceSettings {
  dbType: DbType;
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  sslMode: SslMode;
}

/** Where to connect: the checked address, with the host name kept for TLS. */
export interface SourceTarget extends SourceSettings {
  address: string;
}

export interface SourceResult {
  headers: string[];
  types: ColumnType[];
  /** Rows in batches, as they stream in. */
  records: AsyncIterable<TableRecord[]>;
}

export interface SourceDriver {
  /** Connects, runs SELECT 1, disconnects; throws with the driver's message when it cannot. */
  test(target: SourceTarget): Promise<void>;
  /** Runs `sql` in a read-only transaction and hands the rows to `consume` as they stream in. */
  read<T>(target: SourceTarget, sql: string, consume: (result: SourceResult) => Promise<T>): Promise<T>;
}

const bracketed = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

/** The webhook address guard, applied to a database host when it is saved. */
export async function checkHost(host: string, allowPrivate: boolean): Promise<void> {
  try {
    await checkWebhookUrl(`https://${bracketed(host)}/`, { allowPrivate });
  } catch (error) {
    if (error instanceof UrlRejectedError) throw invalid('host', withDevelopmentHint(error, 'VIGIL_CONNECTIONS_ALLOW_PRIVATE').replace(/^points to /, 'is '));
    throw error;
  }
}

/**
 * Resolves the host once, refuses it when any address is blocked, and returns the address to
 * connect to, so the connection goes exactly where the check looked (no DNS rebinding).
 */
export async function resolveHost(host: string, allowPrivate: boolean): Promise<string> {
  await checkHost(host, allowPrivate);
  if (isIP(host)) return host;
  const found = await systemResolveAll(host);
  if (!allowPrivate) {
    for (const { address } of found) {
      const reason = blockedReason(address);
      if (reason) throw new Error(`${host} resolves to ${address}, ${reason}`);
    }
  }
  if (!found[0]) throw new Error(`${host} has no address`);
  return found[0].address;
}
