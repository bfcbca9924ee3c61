import pg from 'pg';
import type { ProjectSqlConfig } from '../config.js';
import type { Db, Queryable } from '../db/connect.js';
import { lockProjectSchemaSql, projectSchemaName } from '../platform/project-schema.js';
import { ConcurrencyLimit } from '../platform/concurrency-limit.js';
import { StatementStopped } from '../db/embedded-thread.js';
import type { Clock } from '../platform/clock.js';
import { StoppedSqlCooldown } from './stopped-sql-cooldown.js';

/** The alert columns offered to the model, in the REST field order (snake_case, as SQL writes them). */
export const alertViewColumns = [
  'id', 'project_id', 'title', 'description', 'severity', 'status', 'area', 'value', 'threshold', 'assignee_id',
  'created_at', 'updated_at', 'acknowledged_at', 'resolved_at',
] as const;

export const alertsViewName = 'alerts';

/** A table to grant, with the id of what it holds: a dataset deleted and uploaded again reuses its table name. */
export interface ReadableTable {
  id: string;
  table: string;
}

/** Cluster-wide on PostgreSQL, so named from the globally unique project id. */
export function projectReaderRole(projectId: string): string {
  return `vigil_read_${projectSchemaName(projectId).slice('data_'.length)}`;
}

const everyone = 'process';
const readerWorkMem = '4MB';

const quoted = (schema: string, table: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;

/**
 * Makes sure the project's schema, its `alerts` view and a role that may read only that schema
 * exist, and that the role can read `tables`. The view filters the main alerts table by
 * organization and project and is a security barrier, so no condition the model writes runs on
 * another project's rows; the role gets no right on the main tables themselves.
 */
export class ProjectReaders {
  /** Tables already granted by this process: setup runs once per new dataset, not per question. */
  private readonly granted = new Set<string>();
  /** Where the reads run: a pool of their own, so no flood of questions takes the API's connections. */
  private readonly readDb: Db;
  /** One turn per connection of that pool (PGlite: one statement at a time, so the API's queries pass between them). */
  private readonly turns: ConcurrencyLimit;
  /**
   * What callers run an organization's reads through (a question's, a dashboard's widgets): at
   * most two at once, so one organization holds at most two of the pool's connections.
   */
  readonly perOrganization = new ConcurrencyLimit(2);
  /** Each project's organization, learnt by ensure(), which runs before any read of the project (it grants the tables). */
  private readonly organizationOf = new Map<string, string>();
  private readonly cooldown: StoppedSqlCooldown;

  constructor(
    private readonly db: Db,
    config: ProjectSqlConfig,
    clock: Clock,
  ) {
    this.cooldown = new StoppedSqlCooldown(clock);
    this.readDb = db.separatePool(config.poolSize);
    this.turns = new ConcurrencyLimit(db.kind === 'postgres' ? config.poolSize : 1, { ms: config.maxWaitMs, waitingFor: 'connection for project SQL' });
  }

  /** Statements running and waiting for a turn, over every organization. */
  get load(): { running: number; waiting: number } {
    return this.turns.load(everyone);
  }

  /**
   * Whether a statement past its limit costs every tenant a restart of the database (embedded:
   * its thread is stopped and the database reopened) rather than only itself (PostgreSQL cancels it).
   */
  get stopsRestartTheDatabase(): boolean {
    return this.db.kind === 'pglite';
  }

  async ensure(orgId: string, projectId: string, tables: readonly ReadableTable[]): Promise<void> {
    this.organizationOf.set(projectId, orgId);
    const wanted = [{ id: alertsViewName, table: alertsViewName }, ...tables];
    const keys = wanted.map(({ id, table }) => `${projectId}/${id}/${table}`);
    if (keys.every((key) => this.granted.has(key))) return;
    const schema = projectSchemaName(projectId);
    const role = projectReaderRole(projectId);
    const granted = await this.db.transaction(async (tx) => {
      await tx.query(lockProjectSchemaSql(schema));
      const [{ main }] = await tx.query<{ main: string }>('SELECT current_schema() AS main');
      await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
      await createRoleOnce(tx, role);
      await tx.exec(`GRANT USAGE ON SCHEMA ${pg.escapeIdentifier(schema)} TO ${pg.escapeIdentifier(role)}`);
      await tx.exec(
        `CREATE OR REPLACE VIEW ${quoted(schema, alertsViewName)} WITH (security_barrier = true) AS
         SELECT ${alertViewColumns.join(', ')} FROM ${quoted(main, 'alerts')}
         WHERE org_id = ${pg.escapeLiteral(orgId)} AND project_id = ${pg.escapeLiteral(projectId)}`,
      );
      // A dataset deleted since the caller listed it has no table left to grant.
      const existing = await tx.query<{ table: string }>(
        `SELECT "table" FROM unnest($1::text[]) AS t("table") WHERE to_regclass(quote_ident($2) || '.' || quote_ident("table")) IS NOT NULL`,
        [wanted.map(({ table }) => table), schema],
      );
      const list = existing.map(({ table }) => quoted(schema, table)).join(', ');
      await tx.exec(`GRANT SELECT ON ${list} TO ${pg.escapeIdentifier(role)}`);
      return new Set(existing.map(({ table }) => table));
    });
    for (const [index, key] of keys.entries()) if (granted.has(wanted[index].table)) this.granted.add(key);
  }

  /**
   * Runs `work` inside a read-only transaction, as the project's role, seeing only the project's
   * schema, on the pool of its own. Throws NoTurnInTime when no connection frees up in time, and
   * ProjectSqlPaused while the project's organization is paused after a stopped statement.
   */
  async read<T>(projectId: string, statementTimeoutMs: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
    const orgId = this.organizationOf.get(projectId);
    if (orgId) this.cooldown.assertAllowed(orgId);
    try {
      return await this.readAsRole(projectId, statementTimeoutMs, work);
    } catch (error) {
      if (error instanceof StatementStopped && orgId) this.cooldown.pause(orgId);
      throw error;
    }
  }

  private readAsRole<T>(projectId: string, statementTimeoutMs: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
    const schema = projectSchemaName(projectId);
    return this.turns.run(everyone, () =>
      this.readDb.transaction(async (tx) => {
        await tx.query('SET TRANSACTION READ ONLY');
        await tx.query(`SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`);
        // Sorts and hashes spill to disk beyond this, whatever the server's own setting.
        await tx.query(`SET LOCAL work_mem = '${readerWorkMem}'`);
        await tx.query(`SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}, pg_catalog`);
        await tx.query(`SET LOCAL ROLE ${pg.escapeIdentifier(projectReaderRole(projectId))}`);
        return work(tx);
      }),
    );
  }

  /** Closes the pool of its own (at shutdown, once no request runs). */
  async close(): Promise<void> {
    await this.readDb.close();
  }

  async drop(projectId: string): Promise<void> {
    await dropProjectReader(this.db, projectId);
    for (const key of this.granted) if (key.startsWith(`${projectId}/`)) this.granted.delete(key);
  }
}

/** For a deleted project: the role is cluster-wide and would outlive the project's schema. */
export async function dropProjectReader(db: Queryable, projectId: string): Promise<void> {
  await db.query(lockProjectSchemaSql(projectSchemaName(projectId)));
  const role = projectReaderRole(projectId);
  const [exists] = await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists) await db.exec(`DROP OWNED BY ${pg.escapeIdentifier(role)}; DROP ROLE ${pg.escapeIdentifier(role)}`);
}

/**
 * Creates the role and makes the connecting user a member of it: SET ROLE needs that membership,
 * which a superuser has implicitly but a user with only CREATEROLE (PostgreSQL 16+) does not.
 */
async function createRoleOnce(tx: Queryable, role: string): Promise<void> {
  const [exists] = await tx.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists) return;
  await tx.exec(`CREATE ROLE ${pg.escapeIdentifier(role)} NOLOGIN`);
  await tx.exec(`GRANT ${pg.escapeIdentifier(role)} TO CURRENT_USER`);
}
