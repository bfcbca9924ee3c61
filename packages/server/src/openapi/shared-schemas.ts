import type { TSchema } from '@sinclair/typebox';
import { Billing, Deleted } from '../events/catalog.js';
import { Alert, OpenCounts, TimelineEntry } from '../modules/alerts/schema.js';
import { ApiKey } from '../modules/api-keys/schema.js';
import { AiResponse } from '../modules/chat/schema.js';
import { Connection } from '../modules/connections/schema.js';
import { Dataset, DatasetColumnSchema, RowsPage } from '../modules/datasets/schema.js';
import { Export } from '../modules/exports/schema.js';
import { QueryRecord, QueryRecordWithRows } from '../modules/history/schema.js';
import { Project } from '../modules/projects/schema.js';
import { Usage } from '../modules/usage/schema.js';
import { User } from '../modules/users/schema.js';
import { Attempt, Delivery, RecoveryStarted, Webhook, WebhookWithSecret } from '../modules/webhooks/schema.js';
import { ListMeta } from '../platform/pagination.js';
import { ErrorResponse } from '../platform/route-schemas.js';

/**
 * Every schema with an `$id`, registered with Fastify (`addSchema`) before the routes: routes refer
 * to them (`refTo`, `single`, `listOf`), the serializer resolves the references, and the OpenAPI
 * document shows each once under components.schemas by its `$id`. A new named schema goes here;
 * a reference to one that is missing fails at start-up.
 */
export const sharedSchemas: TSchema[] = [
  ErrorResponse,
  ListMeta,
  Project,
  Alert,
  TimelineEntry,
  OpenCounts,
  User,
  Webhook,
  WebhookWithSecret,
  Attempt,
  Delivery,
  RecoveryStarted,
  DatasetColumnSchema,
  Dataset,
  RowsPage,
  Connection,
  Export,
  QueryRecord,
  QueryRecordWithRows,
  AiResponse,
  Usage,
  ApiKey,
  Billing,
  Deleted,
];
