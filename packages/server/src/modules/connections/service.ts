import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { decryptSecret, encryptSecret } from '../../platform/crypto.js';
import { found } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { mysqlSource } from './mysql-source.js';
import { postgresSource } from './postgres-source.js';
import type { Connection, CreateConnection, DbType, UpdateConnection } from './schema.js';
import { checkHost, resolveHost, type SourceDriver, type SourceTarget } from './source.js';
import {
  type ConnectionColumns,
  type ConnectionRow,
  deleteConnectionRow,
  findConnectionRow,
  insertConnection,
  listConnections,
  toConnection,
  updateConnectionRow,
} from './store.js';

const defaultPorts: Record<DbType, number> = { postgresql: 5432, mysql: 3306 };

export const driverFor = (dbType: DbType): SourceDriver => (dbType === 'mysql' ? mysqlSource : postgresSource);

/** A driver's message, without anything that could carry the password. */
export function sourceErrorMessage(error: unknown, password: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = message || 'The connection failed.';
  return password ? text.split(password).join('***') : text;
}

export class ConnectionService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, page: PageQuery): Promise<Page<Connection>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listConnections(this.ctx.db, orgId, window), window);
  }

  async get(orgId: string, id: string): Promise<Connection> {
    return toConnection(await this.row(orgId, id));
  }

  async create(orgId: string, input: CreateConnection): Promise<Connection> {
    await checkHost(input.host, this.ctx.config.connectionsAllowPrivate);
    return this.ctx.db.transaction(async (tx) => {
      const at = this.ctx.clock.now();
      const row = await insertConnection(tx, orgId, newId('connection', at.getTime()), {
        name: input.name,
        db_type: input.dbType,
        host: input.host,
        port: input.port ?? defaultPorts[input.dbType],
        database: input.database,
        username: input.username,
        password_sealed: encryptSecret(this.ctx.config.secretKey, input.password),
        ssl_mode: input.sslMode ?? 'prefer',
        updated_at: at,
      });
      const connection = toConnection(row);
      await recordEvent(tx, this.ctx.clock, orgId, 'db_connection.created', connection);
      return connection;
    });
  }

  /** Any change to where or how to connect makes the status pending again until the next test or import. */
  async update(orgId: string, id: string, input: UpdateConnection): Promise<Connection> {
    if (input.host !== undefined) await checkHost(input.host, this.ctx.config.connectionsAllowPrivate);
    return this.ctx.db.transaction(async (tx) => {
      const reachChanged = Object.keys(input).some((key) => key !== 'name');
      const columns: ConnectionColumns = {
        name: input.name,
        db_type: input.dbType,
        host: input.host,
        port: input.port,
        database: input.database,
        username: input.username,
        password_sealed: input.password === undefined ? undefined : encryptSecret(this.ctx.config.secretKey, input.password),
        ssl_mode: input.sslMode,
        ...(reachChanged ? { status: 'pending' as const, last_error: null } : {}),
        updated_at: this.ctx.clock.now(),
      };
      const connection = toConnection(found(await updateConnectionRow(tx, orgId, id, columns), 'connection'));
      await recordEvent(tx, this.ctx.clock, orgId, 'db_connection.updated', connection);
      return connection;
    });
  }

  async delete(orgId: string, id: string): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      found(await deleteConnectionRow(tx, orgId, id), 'connection');
      await recordEvent(tx, this.ctx.clock, orgId, 'db_connection.deleted', { id });
    });
  }

  /** Connects (5 s limit) and runs SELECT 1; the outcome is the connection's new status. */
  async test(orgId: string, id: string): Promise<Connection> {
    const row = await this.row(orgId, id);
    let error: string | null = null;
    try {
      await driverFor(row.db_type).test(await this.targetOf(row));
    } catch (failure) {
      error = sourceErrorMessage(failure, decryptSecret(this.ctx.config.secretKey, row.password_sealed));
    }
    return toConnection(await this.recordCheck(row, error));
  }

  async recordCheck(row: ConnectionRow, error: string | null): Promise<ConnectionRow> {
    const at = this.ctx.clock.now();
    const columns = { status: error === null ? ('connected' as const) : ('error' as const), last_error: error, last_checked_at: at, updated_at: at };
    return found(await updateConnectionRow(this.ctx.db, row.org_id, row.id, columns), 'connection');
  }

  async row(orgId: string, id: string): Promise<ConnectionRow> {
    return found(await findConnectionRow(this.ctx.db, orgId, id), 'connection');
  }

  /** The settings with the password unsealed and the host checked and resolved, ready to connect. */
  async targetOf(row: ConnectionRow): Promise<SourceTarget> {
    return {
      dbType: row.db_type,
      host: row.host,
      address: await resolveHost(row.host, this.ctx.config.connectionsAllowPrivate),
      port: row.port,
      database: row.database,
      username: row.username,
      password: decryptSecret(this.ctx.config.secretKey, row.password_sealed),
      sslMode: row.ssl_mode,
    };
  }
}
