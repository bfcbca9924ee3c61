export { APIPromise, type RawAnswer } from './api-promise.js';
export { Vigil, Vigil as default, type ApiRequest, type ClientOptions, type QueryValue, type RequestOptions } from './client.js';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  ConflictError,
  type FieldProblem,
  InternalServerError,
  NotFoundError,
  PlanRequiredError,
  RateLimitError,
  ValidationError,
  VigilError,
  WebhookVerificationError,
} from './errors.js';
export type * from './models.js';
export { Page, PagePromise } from './pagination.js';
export type { AlertCreateParams, AlertListParams, AlertUpdateParams } from './resources/alerts.js';
export type { ChatAskParams } from './resources/chat.js';
export type { ConnectionCreateParams, ConnectionImportParams, ConnectionListParams, ConnectionUpdateParams } from './resources/connections.js';
export type { DashboardCreateParams, DashboardListParams, DashboardUpdateParams, WidgetAddParams } from './resources/dashboards.js';
export type { DatasetListParams, DatasetRowsParams, DatasetUploadParams } from './resources/datasets.js';
export type { EmbedSettingsUpdateParams, EmbedTokenCreateParams, EmbedTokenListParams } from './resources/embed.js';
export type { ExportCreateParams, ExportListParams } from './resources/exports.js';
export type { HistoryListParams } from './resources/history.js';
export type { AlertmanagerPayload } from './resources/integrations.js';
export type { ProjectCreateParams, ProjectListParams, ProjectUpdateParams } from './resources/projects.js';
export type { UserInviteParams, UserListParams, UserUpdateParams } from './resources/users.js';
export type { DeliveryListParams, WebhookCreateParams, WebhookListParams, WebhookRecoverParams, WebhookUpdateParams } from './resources/webhooks.js';
export type { UploadSource } from './uploads.js';
export { VERSION } from './version.js';
export { type VerifyOptions, verifyWebhook, type WebhookHeaders, type WebhookPayload } from './webhooks.js';
