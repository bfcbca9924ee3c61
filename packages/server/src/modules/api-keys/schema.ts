import { Type, type Static } from '@sinclair/typebox';
import { NullableString, NullableTimestamp, Timestamp } from '../../platform/route-schemas.js';

/** An API key as it may be shown after creation: never the key itself, never its hash. */
export const ApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, to recognise it by.' }),
    createdBy: NullableString(),
    createdAt: Timestamp,
    expiresAt: NullableTimestamp,
    lastUsedAt: NullableTimestamp,
    revokedAt: NullableTimestamp,
  },
  { $id: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreateApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Omit for a key that never expires.' })),
  },
  { additionalProperties: false },
);
export type CreateApiKey = Static<typeof CreateApiKey>;

/** The answer to creating a key: the only time `apiKey` (the key itself) is shown. */
export const CreatedApiKey = Type.Composite([ApiKey, Type.Object({ apiKey: Type.String({ description: 'svc_live_…, shown once.' }) })]);
