/**
 * The API's resources as the console reads them: one file, so that they can later be generated
 * from the OpenAPI document without touching the pages.
 */
export type Role = 'admin' | 'member' | 'viewer';
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export type AlertStatus = 'active' | 'acknowledged' | 'resolved';

export const severities: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
export const alertStatuses: AlertStatus[] = ['active', 'acknowledged', 'resolved'];

export interface Session {
  user: { id: string; email: string; name: string | null; role: Role };
  organization: { id: string; name: string; plan: string };
  csrfToken: string;
}

export interface List<T> {
  data: T[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

export interface Alert {
  id: string;
  projectId: string;
  title: string;
  description: string | null;
  severity: Severity;
  status: AlertStatus;
  area: string | null;
  value: string | null;
  threshold: string | null;
  assigneeId: string | null;
  createdAt: string;
  updatedAt: string;
  acknowledgedAt: string | null;
  resolvedAt: string | null;
  /** Alerts from other systems (DESIGN §3.10), once the server has them. */
  dedupKey?: string | null;
  occurrences?: number;
  lastSeenAt?: string | null;
}

export type TimelineActor = { type: 'user'; id: string; email: string | null; name: string | null } | { type: 'apiKey'; id: string; name: string | null } | null;

export interface TimelineEntry {
  eventId: string;
  event: string;
  at: string;
  actor: TimelineActor;
  assigneeId: string | null;
}

export type OpenCounts = Record<Severity, number>;

/** A message of GET /alerts/stream. */
export interface AlertChange {
  event: string;
  data: Alert;
}

export interface User {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  status: 'invited' | 'active' | 'deactivated';
}

export interface Project {
  id: string;
  name: string;
  area: string | null;
  description: string | null;
  createdAt: string;
}

export interface DatasetColumn {
  name: string;
  originalName: string;
  type: string;
}

export interface Dataset {
  id: string;
  projectId: string;
  name: string;
  status: 'importing' | 'ready' | 'failed';
  rowCount: number;
  columns: DatasetColumn[];
  sizeBytes: number;
  createdAt: string;
  error?: string | null;
}

export type WidgetKind = 'number' | 'line' | 'bar' | 'pie' | 'table' | 'alerts';
export const widgetKinds: WidgetKind[] = ['number', 'line', 'bar', 'pie', 'table', 'alerts'];
export type MeasureFn = 'count' | 'sum' | 'avg' | 'min' | 'max';
export type Bucket = 'hour' | 'day' | 'week' | 'month';
export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in';

export interface WidgetFilter {
  column: string;
  op: FilterOp;
  value: string | number | boolean | (string | number | boolean)[];
}

export interface StructuredQuery {
  source: 'alerts' | 'dataset';
  datasetId?: string;
  measure?: { fn: MeasureFn; column?: string };
  groupBy?: string;
  bucket?: Bucket;
  filters?: WidgetFilter[];
  limit?: number;
}

export type WidgetQuery = StructuredQuery | { sql: string };

export interface WidgetInput {
  title: string;
  kind: WidgetKind;
  query: WidgetQuery;
}

export interface Widget extends WidgetInput {
  id: string;
}

export interface Dashboard {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  widgets: Widget[];
  createdAt: string;
  updatedAt: string;
}

export interface WidgetResult {
  id: string;
  title: string;
  kind: WidgetKind;
  columns: string[];
  rows: Record<string, unknown>[];
  error: string | null;
}

export interface DashboardData {
  refreshedAt: string;
  widgets: WidgetResult[];
}

export interface EmbedToken {
  id: string;
  token: string;
  expiresAt: string;
}

export interface Webhook {
  id: string;
  name: string;
  url: string;
  events: string[];
  isActive: boolean;
  disabledReason: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  number: number;
  trigger: string;
  startedAt: string;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  errorDetail: string | null;
  responseBody: string | null;
  /** The request headers as sent (signature headers included), when the server recorded them. */
  requestHeaders?: Record<string, string> | null;
}

export interface Delivery {
  id: string;
  event: string;
  status: DeliveryStatus;
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: DeliveryAttempt[];
  payload: { event: string; orgId: string; timestamp: string; data: Record<string, unknown> };
}
