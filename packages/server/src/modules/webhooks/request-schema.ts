import { Type, type Static } from '@sinclair/typebox';
import { allEvents, eventNames } from '../../events/catalog.js';
import { PageQuery } from '../../platform/pagination.js';
import { StringEnum } from '../../platform/route-schemas.js';
import { deliveryStatuses } from './schema.js';

// Apart from schema.ts because the event catalog imports the Webhook shape from there.
const EventName = StringEnum(eventNames);

const editable = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https:// and a public address.' }),
  events: Type.Array(StringEnum([...eventNames, allEvents]), {
    minItems: 1,
    maxItems: eventNames.length + 1,
    uniqueItems: true,
    description: `The events to deliver; "${allEvents}" subscribes to every event, including ones added later.`,
  }),
};

export const CreateWebhook = Type.Object(editable, { additionalProperties: false });
export type CreateWebhook = Static<typeof CreateWebhook>;

export const UpdateWebhook = Type.Partial(Type.Object({ ...editable, isActive: Type.Boolean() }), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateWebhook = Static<typeof UpdateWebhook>;

export const DeliveryQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(StringEnum(deliveryStatuses)), event: Type.Optional(EventName) }),
]);
export type DeliveryQuery = Static<typeof DeliveryQuery>;

export const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 100 }), deliveryId: Type.String({ maxLength: 100 }) });

export const RecoverDeliveries = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Failed deliveries created at or after this time (at most 14 days ago) are sent again.' }) },
  { additionalProperties: false },
);
export type RecoverDeliveries = Static<typeof RecoverDeliveries>;
