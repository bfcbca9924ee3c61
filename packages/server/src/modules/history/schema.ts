import { Type, type Static } from '@sinclair/typebox';
import { NullableString, StringEnum } from '../../platform/route-schemas.js';

export const queryStatuses = ['completed', 'incomplete'] as const;
export type QueryStatus = (typeof queryStatuses)[number];

const NullableText = NullableString();

export const ResultRows = Type.Array(Type.Record(Type.String(), Type.Unknown()), {
  description: 'Up to 100 rows of the last statement that ran, one object per row keyed by column name.',
});

/** One question asked to the AI component and how it was answered. */
export const QueryRecord = Type.Object(
  {
    id: Type.String({ examples: ['qry_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    projectId: Type.String(),
    question: Type.String(),
    answer: Type.String(),
    sql: Type.Union([Type.String(), Type.Null()], { description: 'The last statement that ran; null when no data was read.' }),
    rowCount: Type.Integer({ description: 'Rows that statement returned (at most 100 are kept).' }),
    tokens: Type.Integer({ description: "Sum of the provider's reported tokens over all rounds." }),
    model: Type.String(),
    status: StringEnum(queryStatuses, { description: 'incomplete: the model used every round without answering.' }),
    durationMs: Type.Integer(),
    apiKeyId: NullableText,
    userId: NullableText,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'QueryRecord' },
);
export type QueryRecord = Static<typeof QueryRecord>;

export const QueryRecordWithRows = Type.Composite([QueryRecord, Type.Object({ rows: Type.Union([ResultRows, Type.Null()]) })], {
  $id: 'QueryRecordWithRows',
});
export type QueryRecordWithRows = Static<typeof QueryRecordWithRows>;

export const HistoryFilters = Type.Object({ projectId: Type.Optional(Type.String({ maxLength: 100 })) });
export type HistoryFilters = Static<typeof HistoryFilters>;
