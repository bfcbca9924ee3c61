import type { components } from './generated/openapi.js';
import type { DataOf, Operation } from './operations.js';

export type Project = DataOf<Operation<'/api/v1/projects/{id}', 'get'>>;
export type Alert = DataOf<Operation<'/api/v1/alerts/{id}', 'get'>>;
/** One recorded event of an alert, with who caused it. */
export type AlertTimelineEntry = DataOf<Operation<'/api/v1/alerts/{id}/timeline', 'get'>>;
/** Open alerts (active or acknowledged) per severity. */
export type AlertOpenCounts = DataOf<Operation<'/api/v1/alerts/open-counts', 'get'>>;
export type User = DataOf<Operation<'/api/v1/users/{id}', 'get'>>;
/** An invited user; `inviteUrl` is where they set a password (shown once). */
export type InvitedUser = DataOf<Operation<'/api/v1/users', 'post'>>;
export type Webhook = DataOf<Operation<'/api/v1/webhooks/{id}', 'get'>>;
/** A webhook as created or rotated: with its `secret`, which is never shown again. */
export type WebhookWithSecret = DataOf<Operation<'/api/v1/webhooks', 'post'>>;
export type WebhookDelivery = DataOf<Operation<'/api/v1/webhooks/{id}/deliveries/{deliveryId}', 'get'>>;
export type WebhookRecovery = DataOf<Operation<'/api/v1/webhooks/{id}/recover', 'post'>>;
export type Dataset = DataOf<Operation<'/api/v1/datasets/{id}', 'get'>>;
export type DatasetRow = DataOf<Operation<'/api/v1/datasets/{id}/rows', 'get'>>;
export type Connection = DataOf<Operation<'/api/v1/connections/{id}', 'get'>>;
export type ChatAnswer = DataOf<Operation<'/api/v1/chat', 'post'>>;
/** A question asked, as history lists it. */
export type HistoryEntry = DataOf<Operation<'/api/v1/history', 'get'>>;
/** A question asked, with the rows its SQL returned. */
export type HistoryEntryWithRows = DataOf<Operation<'/api/v1/history/{id}', 'get'>>;
export type Usage = DataOf<Operation<'/api/v1/usage', 'get'>>;
export type Export = DataOf<Operation<'/api/v1/exports/{id}', 'get'>>;
export type Dashboard = DataOf<Operation<'/api/v1/dashboards/{id}', 'get'>>;
/** Every widget's current result: `{dashboardId, refreshedAt, widgets: [{id, title, kind, columns, rows, truncated, error}]}`. */
export type DashboardData = DataOf<Operation<'/api/v1/dashboards/{id}/data', 'get'>>;
/** An embed token as listed: never the token string itself. */
export type EmbedToken = DataOf<Operation<'/api/v1/embed/tokens', 'get'>>;
/** An embed token as minted: with its `token` and `embedUrl`; the token is never shown again. */
export type CreatedEmbedToken = DataOf<Operation<'/api/v1/embed/tokens', 'post'>>;
export type AlertmanagerResult = DataOf<Operation<'/api/v1/integrations/alertmanager', 'post'>>;
export type EmbedSettings = DataOf<Operation<'/api/v1/embed/settings', 'get'>>;

/** A webhook delivery's body, typed by its `event`: `event.event === 'alert.created'` makes `event.data` an `Alert`. */
export type WebhookEvent = components['schemas']['WebhookEvent'];
/** The name of each of the 30 webhook events. */
export type WebhookEventName = WebhookEvent['event'];
