/**
 * The API's resources as the console reads them. The resources, enums and rules are generated from
 * the server's schemas (`npm run generate` → generated/api.ts); what is here is what only the
 * console composes: the widget builder's pieces, the live stream's message, the delivery's parts.
 */
import type { userRoles } from './generated/api';
import { alertSeverities, alertStatuses, type Alert, type CreatedEmbedToken, type Dashboard, type DashboardData, type Dataset, type Delivery, type TimelineEntry } from './generated/api';

export type {
  Alert,
  Dashboard,
  DashboardData,
  Dataset,
  Delivery,
  List,
  OpenCounts,
  Project,
  Session,
  TimelineEntry,
  User,
  Webhook,
} from './generated/api';

export type Role = (typeof userRoles)[number];
export type Severity = (typeof alertSeverities)[number];
export type AlertStatus = (typeof alertStatuses)[number];

export const severities: readonly Severity[] = alertSeverities;
export { alertStatuses };

export type TimelineActor = TimelineEntry['actor'];

/** A message of GET /alerts/stream. */
export interface AlertChange {
  event: string;
  data: Alert;
}

export type DatasetColumn = Dataset['columns'][number];

export type WidgetKind = Dashboard['widgets'][number]['kind'];
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

export type WidgetResult = DashboardData['widgets'][number];

export type EmbedToken = Pick<CreatedEmbedToken, 'id' | 'token' | 'expiresAt'>;

export type DeliveryStatus = Delivery['status'];

export type DeliveryAttempt = Delivery['attempts'][number];

