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
