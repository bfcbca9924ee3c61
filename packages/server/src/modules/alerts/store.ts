import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import { namedStatement } from '../../db/named-statement.js';
import { updateOwnedRow } from '../../db/update.js';
import type { PageWindow } from '../../platform/pagination.js';
import { type Alert, type AlertFilters, type AlertStatus, type CreateAlert, type OpenCounts, type Severity, severities, type TimelineEntry } from './schema.js';
import { isoOrNull, isoTimestamp } from '../../db/timestamps.js';

export interface AlertRow {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  severity: Severity;
  status: AlertStatus;
  area: string | null;
  value: string | null;
  threshold: string | null;
  assignee_id: string | null;
  created_at: Date;
  updated_at: Date;
  acknowledged_at: Date | null;
  resolved_at: Date | null;
  dedup_key: string | null;
  occurrences: number;
  last_seen_at: Date | null;
}

/** Every column of AlertRow, named in the statements kept prepared (db/named-statement.ts); the Record makes the compiler check that none is missing. */
const alertColumns = Object.keys({
  id: true,
  project_id: true,
  title: true,
  description: true,
  severity: true,
  status: true,
  area: true,
  value: true,
  threshold: true,
  assignee_id: true,
  created_at: true,
  updated_at: true,
  acknowledged_at: true,
  resolved_at: true,
  dedup_key: true,
  occurrences: true,
  last_seen_at: true,
} satisfies Record<keyof AlertRow, true>);

const findAlertStatements = {
  read: namedStatement(`SELECT ${alertColumns.join(', ')} FROM alerts WHERE org_id = $1 AND id = $2`),
  forUpdate: namedStatement(`SELECT ${alertColumns.join(', ')} FROM alerts WHERE org_id = $1 AND id = $2 FOR UPDATE`),
};

/** What a POST of an alert did: created it, or counted a repeat of the open alert with its dedupKey. */
export interface RaisedAlert {
  alert: Alert;
  repeated: boolean;
}

export const toAlert = (row: AlertRow): Alert => ({
  id: row.id,
  projectId: row.project_id,
  title: row.title,
  description: row.description,
  severity: row.severity,
  status: row.status,
  area: row.area,
  value: row.value,
  threshold: row.threshold,
  assigneeId: row.assignee_id,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
  acknowledgedAt: isoOrNull(row.acknowledged_at),
  resolvedAt: isoOrNull(row.resolved_at),
  dedupKey: row.dedup_key,
  occurrences: row.occurrences,
  // Null only on rows a process of the previous version inserted during a rolling upgrade (migration 0800).
  lastSeenAt: isoTimestamp(row.last_seen_at ?? row.created_at),
});

/**
 * Inserts the alert, or, when its dedup key names an open alert of the project, counts a repeat of
 * that one instead (occurrences + 1, last seen now) and returns it unchanged otherwise. One
 * statement either way: the partial unique index of open keys (migration 0800) is the arbiter, so
 * concurrent repeats wait for each other's row instead of racing to insert.
 */
export async function insertOrRepeatAlert(db: Queryable, orgId: string, id: string, input: CreateAlert, at: Date): Promise<RaisedAlert> {
  const [row] = await db.query<AlertRow>(
    `INSERT INTO alerts (id, org_id, project_id, title, description, severity, status, area, value, threshold, dedup_key, created_at, updated_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8, $9, $10, $11, $11, $11)
     ON CONFLICT (project_id, dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('active', 'acknowledged')
     DO UPDATE SET occurrences = alerts.occurrences + 1, last_seen_at = EXCLUDED.last_seen_at, updated_at = EXCLUDED.updated_at
     RETURNING *`,
    [
      id,
      orgId,
      input.projectId,
      input.title,
      input.description ?? null,
      input.severity,
      input.area ?? null,
      input.value ?? null,
      input.threshold ?? null,
      input.dedupKey ?? null,
      at,
    ],
  );
  return { alert: toAlert(row), repeated: row.id !== id };
}

/** Resolves the project's open alert with this dedup key, if there is one. */
export async function resolveOpenAlert(db: Queryable, orgId: string, projectId: string, dedupKey: string, at: Date): Promise<Alert | undefined> {
  const [row] = await db.query<AlertRow>(
    `UPDATE alerts SET status = 'resolved', resolved_at = $4, updated_at = $4
     WHERE project_id = $2 AND dedup_key = $3 AND status IN ('active', 'acknowledged') AND org_id = $1
     RETURNING *`,
    [orgId, projectId, dedupKey, at],
  );
  return row ? toAlert(row) : undefined;
}

export async function findAlert(db: Queryable, orgId: string, id: string, forUpdate = false): Promise<Alert | undefined> {
  const [row] = await db.query<AlertRow>(forUpdate ? findAlertStatements.forUpdate : findAlertStatements.read, [orgId, id]);
  return row ? toAlert(row) : undefined;
}

export async function listAlerts(db: Queryable, orgId: string, filters: AlertFilters, window: PageWindow): Promise<Alert[]> {
  const where = { project_id: filters.projectId, status: filters.status, severity: filters.severity, assignee_id: filters.assigneeId, dedup_key: filters.dedupKey };
  return (await selectPage<AlertRow>(db, { from: 'alerts', orgId, where, contains: { column: 'title', text: filters.q }, window, columns: alertColumns })).map(toAlert);
}

/**
 * The newest `window.limit` alerts of each project in `projectIds` (older than `window.beforeId`),
 * in one statement: a rank within each project instead of one query per project.
 */
export async function listAlertsOfProjects(
  db: Queryable,
  orgId: string,
  projectIds: readonly string[],
  filters: Omit<AlertFilters, 'projectId' | 'dedupKey'>,
  window: PageWindow,
): Promise<Alert[]> {
  const rows = await db.query<AlertRow>(
    `SELECT * FROM (
       SELECT alerts.*, row_number() OVER (PARTITION BY project_id ORDER BY id DESC) AS rank
       FROM alerts
       WHERE org_id = $1 AND project_id = ANY ($2::text[])
         AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR severity = $4) AND ($5::text IS NULL OR id < $5)
     ) ranked
     WHERE rank <= $6
     ORDER BY id DESC`,
    [orgId, projectIds, filters.status ?? null, filters.severity ?? null, window.beforeId ?? null, window.limit],
  );
  return rows.map(toAlert);
}

export interface AlertChanges {
  title?: string;
  description?: string | null;
  severity?: Severity;
  area?: string | null;
  value?: string | null;
  threshold?: string | null;
  status?: AlertStatus;
  assignee_id?: string;
  acknowledged_at?: Date;
  resolved_at?: Date;
  updated_at: Date;
}

export async function updateAlert(db: Queryable, orgId: string, id: string, changes: AlertChanges): Promise<Alert> {
  const row = await updateOwnedRow<AlertRow>(db, 'alerts', orgId, id, { ...changes });
  return toAlert(row!);
}

export async function deleteAlert(db: Queryable, orgId: string, id: string): Promise<Alert | undefined> {
  const [row] = await db.query<AlertRow>(`DELETE FROM alerts WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, id]);
  return row ? toAlert(row) : undefined;
}

interface EventRow {
  id: string;
  type: string;
  created_at: Date;
  actor_id: string | null;
  assignee_id: string | null;
  user_email: string | null;
  user_name: string | null;
  key_name: string | null;
}

function actorOf(row: EventRow): TimelineEntry['actor'] {
  if (row.actor_id === null) return null;
  if (row.key_name !== null) return { type: 'apiKey', id: row.actor_id, name: row.key_name };
  return { type: 'user', id: row.actor_id, email: row.user_email, name: row.user_name };
}

/** The alert's recorded events, oldest first, each with who caused it (as they are named now). */
export async function listAlertEvents(db: Queryable, orgId: string, alertId: string): Promise<TimelineEntry[]> {
  const rows = await db.query<EventRow>(
    `SELECT e.id, e.type, e.created_at, e.actor_id, e.data->>'assigneeId' AS assignee_id,
            u.email AS user_email, u.name AS user_name, k.name AS key_name
     FROM events e
     LEFT JOIN users u ON u.org_id = e.org_id AND u.id = e.actor_id
     LEFT JOIN api_keys k ON k.org_id = e.org_id AND k.id = e.actor_id
     WHERE e.org_id = $1 AND e.type LIKE 'alert.%' AND e.data->>'id' = $2
     ORDER BY e.id`,
    [orgId, alertId],
  );
  return rows.map((row) => ({ eventId: row.id, event: row.type, at: isoTimestamp(row.created_at), actor: actorOf(row), assigneeId: row.assignee_id }));
}

export async function countOpenAlerts(db: Queryable, orgId: string, projectId: string | undefined): Promise<OpenCounts> {
  const rows = await db.query<{ severity: Severity; count: string | number }>(
    `SELECT severity, count(*) AS count FROM alerts
     WHERE org_id = $1 AND status IN ('active', 'acknowledged') AND ($2::text IS NULL OR project_id = $2)
     GROUP BY severity`,
    [orgId, projectId ?? null],
  );
  const counts = Object.fromEntries(severities.map((severity) => [severity, 0])) as OpenCounts;
  for (const row of rows) counts[row.severity] = Number(row.count);
  return counts;
}
