import { Type, type Static } from '@sinclair/typebox';
import { ResultRows } from '../history/schema.js';

export const AskQuestion = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 4_000, description: 'The question, in plain language.' }),
    projectId: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { additionalProperties: false },
);
export type AskQuestion = Static<typeof AskQuestion>;

/** The spec's "AI response", plus where the answer came from. */
export const AiResponse = Type.Object(
  {
    answer: Type.String(),
    tokens: Type.Integer({ description: "Sum of the provider's reported tokens over all rounds of this question." }),
    model: Type.String({ description: 'The model the provider says answered.' }),
    projectId: Type.String(),
    queryId: Type.String({ description: 'The history entry (qry_…) of this question.' }),
    sql: Type.Optional(Type.String({ description: 'The last statement that ran, when data was read.' })),
    rows: Type.Optional(ResultRows),
  },
  { $id: 'AiResponse' },
);
export type AiResponse = Static<typeof AiResponse>;
