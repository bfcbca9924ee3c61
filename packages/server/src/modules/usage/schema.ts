import { Type, type Static } from '@sinclair/typebox';
import { plans } from '../../platform/plans.js';
import { StringEnum } from '../../platform/route-schemas.js';

const Count = Type.Integer({ minimum: 0 });
const Limit = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null: unlimited' });

const Activity = {
  apiRequests: Count,
  aiQuestions: Count,
  tokens: Count,
  exports: Count,
  datasetsCreated: Type.Integer({ minimum: 0, description: 'Datasets created in the period that are still stored.' }),
  rowsImported: Type.Integer({ minimum: 0, description: 'Rows of those datasets.' }),
};

export const Usage = Type.Object(
  {
    orgId: Type.String(),
    plan: StringEnum(plans),
    period: Type.Object({
      start: Type.String({ format: 'date-time', description: 'First instant of the current calendar month, UTC.' }),
      end: Type.String({ format: 'date-time', description: 'First instant of the next month (exclusive).' }),
    }),
    totals: Type.Object(Activity),
    stored: Type.Object({ datasets: Count, rows: Count, bytes: Count }, { description: 'Ready datasets kept now.' }),
    days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...Activity }), {
      description: 'Every day of the period up to today, oldest first.',
    }),
    limits: Type.Object({
      requestsPerMinute: Type.Integer(),
      aiQuestionsPerMonth: Limit,
      tokensPerMonth: Limit,
      datasets: Limit,
      rowsStored: Limit,
      exportsPerMonth: Limit,
    }),
  },
  { $id: 'Usage' },
);
export type Usage = Static<typeof Usage>;
