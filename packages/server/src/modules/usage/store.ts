import type { Queryable } from '../../db/connect.js';

export interface UsageIncrement {
  orgId: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  apiRequests: number;
  aiQuestions: number;
  tokens: number;
}

/** Adds a batch of counts in one statement; counts for an organization deleted meanwhile are dropped. */
export async function addUsage(db: Queryable, batch: UsageIncrement[]): Promise<void> {
  await db.query(
    `INSERT INTO usage_daily (org_id, day, api_requests, ai_questions, tokens)
     SELECT u.org_id, u.day, u.api_requests, u.ai_questions, u.tokens
     FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[], $5::bigint[])
          AS u (org_id, day, api_requests, ai_questions, tokens)
     JOIN organizations o ON o.id = u.org_id
     ON CONFLICT (org_id, day) DO UPDATE SET
       api_requests = usage_daily.api_requests + EXCLUDED.api_requests,
       ai_questions = usage_daily.ai_questions + EXCLUDED.ai_questions,
       tokens = usage_daily.tokens + EXCLUDED.tokens`,
    [
      batch.map((counts) => counts.orgId),
      batch.map((counts) => counts.day),
      batch.map((counts) => counts.apiRequests),
      batch.map((counts) => counts.aiQuestions),
      batch.map((counts) => counts.tokens),
    ],
  );
}

export interface DayActivity {
  date: string;
  apiRequests: number;
  aiQuestions: number;
  tokens: number;
  exports: number;
  datasetsCreated: number;
  rowsImported: number;
}

/**
 * One row per day of [from, to) with activity. Counters come from usage_daily; exports and
 * datasets are counted from their own tables (the organization's rows of the month, by index).
 */
export async function readDays(db: Queryable, orgId: string, from: Date, to: Date): Promise<DayActivity[]> {
  return db.query<DayActivity>(
    `WITH counted AS (
       SELECT day, api_requests, ai_questions, tokens, 0::bigint AS exports, 0::bigint AS datasets, 0::bigint AS rows
       FROM usage_daily WHERE org_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date
       UNION ALL
       SELECT (created_at AT TIME ZONE 'UTC')::date, 0, 0, 0, 1, 0, 0
       FROM exports WHERE org_id = $1 AND created_at >= $2 AND created_at < $3
       UNION ALL
       SELECT (created_at AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 1, row_count
       FROM datasets WHERE org_id = $1 AND created_at >= $2 AND created_at < $3
     )
     SELECT to_char(day, 'YYYY-MM-DD') AS date,
            sum(api_requests)::float8 AS "apiRequests", sum(ai_questions)::float8 AS "aiQuestions",
            sum(tokens)::float8 AS tokens, sum(exports)::float8 AS exports,
            sum(datasets)::float8 AS "datasetsCreated", sum(rows)::float8 AS "rowsImported"
     FROM counted GROUP BY day ORDER BY day`,
    [orgId, from, to],
  );
}

/** AI questions and tokens counted since `from` (the first day of the month). */
export async function readMonthAi(db: Queryable, orgId: string, from: Date): Promise<{ aiQuestions: number; tokens: number }> {
  const [used] = await db.query<{ aiQuestions: number; tokens: number }>(
    `SELECT coalesce(sum(ai_questions), 0)::float8 AS "aiQuestions", coalesce(sum(tokens), 0)::float8 AS tokens
     FROM usage_daily WHERE org_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date`,
    [orgId, from],
  );
  return used;
}

export interface Stored {
  datasets: number;
  rows: number;
  bytes: number;
}

/** What the organization keeps right now: its ready datasets. */
export async function readStored(db: Queryable, orgId: string): Promise<Stored> {
  const [stored] = await db.query<Stored>(
    `SELECT count(*)::float8 AS datasets, coalesce(sum(row_count), 0)::float8 AS rows, coalesce(sum(size_bytes), 0)::float8 AS bytes
     FROM datasets WHERE org_id = $1 AND status = 'ready'`,
    [orgId],
  );
  return stored;
}
