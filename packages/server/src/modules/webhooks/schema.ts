import { Type, type Static } from '@sinclair/typebox';
import { NullableTimestamp, StringEnum, Timestamp, refTo } from '../../platform/route-schemas.js';

/** A webhook as the API and the webhook.* events show it: never its secret. */
export const Webhook = Type.Object(
  {
    id: Type.String({ examples: ['whk_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    name: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    isActive: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'Why the webhook was disabled; null while it is active.' }),
  },
  { $id: 'Webhook' },
);
export type Webhook = Static<typeof Webhook>;

/** Only in the responses to creation and rotation: the one time the secret leaves Vigil. */
export const WebhookWithSecret = Type.Composite(
  [Webhook, Type.Object({ secret: Type.String({ description: 'whsec_ followed by 32 random bytes in base64. Shown only now.' }) })],
  { $id: 'WebhookWithSecret' },
);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];
export const attemptTriggers = ['scheduled', 'manual'] as const;
export type AttemptTrigger = (typeof attemptTriggers)[number];
export const attemptErrors = ['timeout', 'dns', 'tls', 'refused', 'blocked_address', 'connection', 'invalid_url', 'worker_lost', 'not_sent'] as const;
export type AttemptError = (typeof attemptErrors)[number];

export const Attempt = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    trigger: StringEnum(attemptTriggers),
    startedAt: Timestamp,
    durationMs: Type.Integer(),
    httpStatus: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([StringEnum(attemptErrors), Type.Null()], {
      description:
        'Why no answer came; `worker_lost`: the worker sending it stopped before its outcome was known (the request may have arrived); `not_sent`: the worker gave the delivery back before sending, its database having failed (no request left).',
    }),
    errorDetail: Type.Union([Type.String(), Type.Null()], {
      description: 'More about the error where its kind says too little, e.g. why TLS failed: untrusted issuer, name mismatch, expired.',
    }),
    responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KiB of the response body.' }),
    requestHeaders: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: 'The request headers as sent, signatures included (null for attempts recorded before Vigil kept them, and for lost attempts).',
    }),
  },
  { $id: 'DeliveryAttempt' },
);
export type Attempt = Static<typeof Attempt>;

export const Delivery = Type.Object(
  {
    id: Type.String({ examples: ['dlv_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    webhookId: Type.String(),
    eventId: Type.String(),
    event: Type.String(),
    status: StringEnum(deliveryStatuses),
    attempts: Type.Array(refTo(Attempt)),
    nextAttemptAt: NullableTimestamp,
    createdAt: Timestamp,
    payload: Type.Object(
      { event: Type.String(), orgId: Type.String(), timestamp: Timestamp, data: Type.Object({}, { additionalProperties: true }) },
      { description: 'The body every attempt sends.' },
    ),
  },
  { $id: 'Delivery' },
);
export type Delivery = Static<typeof Delivery>;

export const RecoveryStarted = Type.Object(
  {
    webhookId: Type.String(),
    since: Timestamp,
    deliveries: Type.Integer({ description: 'How many failed deliveries are sent again.' }),
  },
  { $id: 'WebhookRecovery' },
);
export type RecoveryStarted = Static<typeof RecoveryStarted>;
