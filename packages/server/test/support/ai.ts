import pg from 'pg';
import { projectSchemaName } from '../../src/platform/project-schema.js';
import { startTestApp, type TestApp, type TestAppOptions, type TestOrg } from './app.js';
import type { DatabaseKind } from './databases.js';
import { type FakeLlm, startFakeLlm } from './fake-llm.js';
import type { One } from './resources.js';

export interface AiAnswer {
  answer: string;
  tokens: number;
  model: string;
  projectId: string;
  queryId: string;
  sql?: string;
  rows?: Record<string, unknown>[];
}

/** AI settings pointing at the fake provider; a short timeout keeps the failure tests quick. */
export const aiConfigFor = (fake: FakeLlm) => ({ ai: { baseUrl: fake.baseUrl, apiKey: 'sk-test-123', model: 'gpt-test', timeoutMs: 1_000 } });

export interface AiTestApp {
  t: TestApp;
  fake: FakeLlm;
  /** Removes the projects' schemas and roles, then stops the app and the fake provider. */
  stop(projectIds: string[]): Promise<void>;
}

/** A test app whose AI provider is a fresh fake chat-completions server. */
export async function startAiTestApp(kind: DatabaseKind, options: TestAppOptions = {}): Promise<AiTestApp> {
  const fake = await startFakeLlm();
  const t = await startTestApp(kind, { ...options, config: { ...aiConfigFor(fake), ...options.config } });
  return {
    t,
    fake,
    async stop(projectIds) {
      await dropProjectData(t, projectIds);
      await t.close();
      await fake.close();
    },
  };
}

export function ask(t: TestApp, org: TestOrg, projectId: string, message: string) {
  return t.request<One<AiAnswer>>('POST', 'chat', { apiKey: org.apiKey, body: { message, projectId } });
}

/**
 * Project schemas and reader roles live outside a test's own schema on PostgreSQL (roles are
 * cluster-wide), so suites remove the ones their projects got.
 */
export async function dropProjectData(t: TestApp, projectIds: string[]): Promise<void> {
  for (const projectId of projectIds) {
    await t.database.db.exec(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(projectSchemaName(projectId))} CASCADE`);
    await t.app.services.chat.readers.drop(projectId);
  }
}

/** A dataset as the data module leaves it: a table in the project's schema and a `ready` metadata row. */
export async function createDatasetTable(
  t: TestApp,
  orgId: string,
  projectId: string,
  dataset: { id: string; name: string; table: string; columns: { name: string; type: string; originalName: string }[]; rows: unknown[][]; status?: string; createdAt?: Date },
): Promise<void> {
  const schema = pg.escapeIdentifier(projectSchemaName(projectId));
  const table = `${schema}.${pg.escapeIdentifier(dataset.table)}`;
  await t.database.db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await t.database.db.exec(
    `CREATE TABLE ${table} (${dataset.columns.map((column) => `${pg.escapeIdentifier(column.name)} ${column.type}`).join(', ')})`,
  );
  for (const row of dataset.rows) {
    await t.database.db.query(`INSERT INTO ${table} VALUES (${row.map((_, index) => `$${index + 1}`).join(', ')})`, row);
  }
  const at = dataset.createdAt ?? new Date();
  await t.database.db.query(
    `INSERT INTO datasets (id, org_id, project_id, name, table_name, status, source, row_count, size_bytes, columns, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'upload', $7, 1000, $8, $9, $9)`,
    [dataset.id, orgId, projectId, dataset.name, dataset.table, dataset.status ?? 'ready', dataset.rows.length, JSON.stringify(dataset.columns), at],
  );
}
