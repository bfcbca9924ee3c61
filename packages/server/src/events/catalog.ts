import { NullableString, StringEnum } from '../platform/route-schemas.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Alert } from '../modules/alerts/schema.js';
import { ApiKey } from '../modules/api-keys/schema.js';
import { Connection } from '../modules/connections/schema.js';
import { Dataset } from '../modules/datasets/schema.js';
import { QueryRecord } from '../modules/history/schema.js';
import { Project } from '../modules/projects/schema.js';
import { User } from '../modules/users/schema.js';
import { Webhook } from '../modules/webhooks/schema.js';
import { plans } from '../platform/plans.js';

const PlanEnum = StringEnum(plans);

export const Billing = Type.Object(
  {
    orgId: Type.String(),
    plan: PlanEnum,
    previousPlan: Type.Union([PlanEnum, Type.Null()]),
    reason: NullableString(),
  },
  { $id: 'BillingChange' },
);

/** Deleted resources are announced by id (and project, where they had one): the row is gone. */
export const Deleted = Type.Object({ id: Type.String(), projectId: Type.Optional(Type.String()) }, { $id: 'DeletedResource' });

interface EventDefinition {
  description: string;
  data: TSchema;
}

export const eventCatalog = {
  'alert.created': { description: 'An alert was created.', data: Alert },
  'alert.acknowledged': { description: 'An alert was acknowledged.', data: Alert },
  'alert.assigned': { description: 'An alert was assigned to a user.', data: Alert },
  'alert.resolved': { description: 'An alert was resolved.', data: Alert },
  'alert.critical': { description: 'An alert of critical severity was triggered (created, or raised to critical).', data: Alert },
  'alert.deleted': { description: 'An alert was deleted.', data: Alert },
  'csv.uploaded': { description: 'A CSV/Excel file was uploaded to a project.', data: Dataset },
  'data.db_import': {
    description: 'Data was imported from a database connection (the dataset, with its connectionId and rowCount).',
    data: Dataset,
  },
  'query.completed': { description: 'An AI query finished.', data: QueryRecord },
  'query.deleted': { description: 'A query history entry was deleted.', data: Deleted },
  'project.created': { description: 'A project was created.', data: Project },
  'project.updated': { description: 'A project was updated.', data: Project },
  'project.deleted': { description: 'A project was deleted.', data: Project },
  'db_connection.created': { description: 'A database connection was added.', data: Connection },
  'db_connection.updated': { description: 'A database connection was changed.', data: Connection },
  'db_connection.deleted': { description: 'A database connection was removed.', data: Deleted },
  'user.invited': { description: 'A user was invited to the organization.', data: User },
  'user.joined': { description: 'A user accepted an invitation.', data: User },
  'user.activated': { description: 'A user was activated.', data: User },
  'user.deactivated': { description: 'A user was deactivated.', data: User },
  'billing.subscription_activated': { description: 'A subscription was activated.', data: Billing },
  'billing.subscription_cancelled': { description: 'A subscription was cancelled.', data: Billing },
  'billing.trial_expired': { description: 'A free trial expired.', data: Billing },
  'billing.payment_failed': { description: 'A payment failed.', data: Billing },
  'webhook.created': { description: 'A webhook was registered.', data: Webhook },
  'webhook.enabled': { description: 'A webhook was enabled.', data: Webhook },
  'webhook.disabled': { description: 'A webhook was disabled.', data: Webhook },
  'webhook.deleted': { description: 'A webhook was deleted.', data: Webhook },
  'api_key.created': { description: 'An API key was generated.', data: ApiKey },
  'api_key.deleted': { description: 'An API key was revoked.', data: ApiKey },
} as const satisfies Record<string, EventDefinition>;

export type EventName = keyof typeof eventCatalog;
export type EventData<E extends EventName> = Static<(typeof eventCatalog)[E]['data']>;

export const eventNames = Object.keys(eventCatalog) as EventName[];

export function isEventName(value: string): value is EventName {
  return Object.hasOwn(eventCatalog, value);
}
