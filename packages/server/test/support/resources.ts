import type { Queryable } from '../../src/db/connect.js';
import type { TestApp, TestOrg } from './app.js';

/** The REST shapes as a client reads them, for the tests that check them. */
export interface Project {
  id: string;
  name: string;
  area: string | null;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Alert {
  id: string;
  projectId: string;
  title: string;
  description: string | null;
  severity: string;
  status: string;
  area: string | null;
  value: string | null;
  threshold: string | null;
  assigneeId: string | null;
  createdAt: string;
  updatedAt: string;
  acknowledgedAt: string | null;
  resolvedAt: string | null;
  dedupKey: string | null;
  occurrences: number;
  lastSeenAt: string;
}

export interface User {
  id: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
  requestId: string;
}

export interface One<T> {
  data: T;
}

export interface List<T> {
  data: T[];
  meta: { limit: number; hasMore: boolean; nextCursor: string | null };
}

export async function createProject(t: TestApp, org: TestOrg, name = 'Checkout'): Promise<Project> {
  const response = await t.request<One<Project>>('POST', 'projects', { apiKey: org.apiKey, body: { name } });
  if (response.status !== 201) throw new Error(`project not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

export async function createAlert(t: TestApp, org: TestOrg, body: Record<string, unknown>): Promise<Alert> {
  const response = await t.request<One<Alert>>('POST', 'alerts', { apiKey: org.apiKey, body: { severity: 'medium', ...body } });
  if (response.status !== 201) throw new Error(`alert not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

export async function inviteUser(t: TestApp, org: TestOrg, email: string, role = 'member'): Promise<User> {
  const response = await t.request<One<User & { inviteUrl: string }>>('POST', 'users', { apiKey: org.apiKey, body: { email, role } });
  if (response.status !== 201) throw new Error(`user not invited: ${response.status} ${JSON.stringify(response.body)}`);
  const { inviteUrl: _inviteUrl, ...user } = response.body.data;
  return user;
}

export interface StoredEvent {
  type: string;
  data: Record<string, unknown> & { id: string };
  createdAt: Date;
}

/** The organization's outbox, oldest first; only the events of `types` when given. */
export async function eventsOf(t: TestApp, orgId: string, ...types: string[]): Promise<StoredEvent[]> {
  const rows = await t.database.db.query<{ type: string; data: StoredEvent['data']; created_at: Date }>(
    'SELECT type, data, created_at FROM events WHERE org_id = $1 ORDER BY id',
    [orgId],
  );
  return rows
    .filter((row) => types.length === 0 || types.includes(row.type))
    .map((row) => ({ type: row.type, data: row.data, createdAt: row.created_at }));
}

/** Every page of a list, following nextCursor until hasMore is false. */
export async function allPages<T>(t: TestApp, org: TestOrg, path: string, limit = 100): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const url = `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const page: { status: number; body: List<T> } = await t.request<List<T>>('GET', url, { apiKey: org.apiKey });
    if (page.status !== 200) throw new Error(`list failed: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body.data);
    cursor = page.body.meta.nextCursor;
  } while (cursor);
  return items;
}

/** Every row stored for an organization, outbox included, so "nothing changed" is checked as a whole. */
export async function orgSnapshot(db: Queryable, orgId: string): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {};
  for (const table of ['projects', 'alerts', 'users', 'events']) {
    snapshot[table] = await db.query(`SELECT * FROM ${table} WHERE org_id = $1 ORDER BY id`, [orgId]);
  }
  return snapshot;
}
