import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { deliveryPayload } from '../../packages/server/src/webhooks/payload.js';
import { deliveryHeaders } from '../../packages/server/src/webhooks/signer.js';
import { postgresCpuMicros, postgresCpuMicrosSince } from './postgres-cpu.js';

export interface RecordedSenderTarget {
  databaseUrl: string;
  /** The schema whose queue holds the deliveries, due now. */
  schema: string;
  origin: string;
  ca: string;
  /** The webhook whose deliveries are queued, and its secret as created (the baseline does not unseal it). */
  webhookId: string;
  secret: string;
  connections: number;
}

interface ClaimedRow {
  id: string;
  org_id: string;
  event: string;
  number: number;
  data: Record<string, unknown>;
  created_at: Date;
}

const batchSize = 100;
/** Batches handled at once, so that one batch's statements overlap the others' requests. */
const batchesAtOnce = 3;
const leaseSql = `now() + interval '1 minute'`;

/**
 * The least that does the worker's work: per batch of 100 due deliveries of the one webhook (read
 * through the queue's index on `(webhook_id, next_attempt_at)`, as the worker reads them), one
 * statement that leases them and records their attempts as started (write-ahead), then each
 * signed and POSTed, then one statement that records every outcome (status, duration, request
 * headers, response body) and settles the deliveries; both statements prepared, as the worker's
 * are. No retries, schedules, per-webhook limits, failure tracking or secret unsealing: what is
 * left is the database work every recorded attempt needs. Answers deliveries per second, and the
 * CPU time PostgreSQL's processes used meanwhile (µs).
 */
export async function recordedSender(target: RecordedSenderTarget): Promise<{ perSecond: number; postgresMicros: number }> {
  const db = new pg.Pool({ connectionString: target.databaseUrl, max: batchesAtOnce, options: `-c search_path=${target.schema}` });
  const http = new Pool(target.origin, { connections: target.connections, pipelining: 1, connect: { ca: [target.ca] } });
  let sent = 0;
  const sendBatch = async (): Promise<boolean> => {
    const { rows } = await db.query<ClaimedRow>({
      name: 'bare_claim',
      text: `WITH due AS (
         SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND next_attempt_at <= now() AND leased_until IS NULL
         ORDER BY next_attempt_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET lease_token = 'bare', leased_until = ${leaseSql}, attempt_count = d.attempt_count + 1
         FROM due WHERE d.id = due.id RETURNING d.id, d.org_id, d.event, d.event_id, d.attempt_count
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, lease_token, leased_until)
         SELECT id, attempt_count, 'scheduled', now(), 'bare', ${leaseSql} FROM claimed
       )
       SELECT c.id, c.org_id, c.event, c.attempt_count AS number, e.data, e.created_at FROM claimed c JOIN events e ON e.id = c.event_id`,
      values: [target.webhookId],
    });
    if (rows.length === 0) return false;
    const outcomes = await Promise.all(
      rows.map(async (row) => {
        const body = JSON.stringify(deliveryPayload(row.event, row.org_id, row.created_at, row.data));
        const headers = deliveryHeaders({ deliveryId: row.id, event: row.event, body, timestamp: Math.floor(Date.now() / 1000), secrets: [target.secret] });
        const started = performance.now();
        const response = await http.request({ path: '/hook', method: 'POST', headers, body });
        const answer = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`the recorded sender got ${response.statusCode}`);
        return { status: response.statusCode, durationMs: Math.round(performance.now() - started), answer, headers: JSON.stringify(headers) };
      }),
    );
    await db.query({
      name: 'bare_outcomes',
      text: `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::text[], $6::text[]) AS t (id, number, status, duration_ms, body, headers)
       ), settled AS (
         UPDATE webhook_deliveries d SET status = 'delivered', next_attempt_at = NULL, lease_token = NULL, leased_until = NULL, updated_at = now()
         FROM input i WHERE d.id = i.id
       )
       UPDATE webhook_attempts a SET duration_ms = i.duration_ms, http_status = i.status, response_body = i.body, request_headers = i.headers::jsonb,
         lease_token = NULL, leased_until = NULL
       FROM input i WHERE a.delivery_id = i.id AND a.number = i.number`,
      values: [
        rows.map((row) => row.id),
        rows.map((row) => row.number),
        outcomes.map((outcome) => outcome.status),
        outcomes.map((outcome) => outcome.durationMs),
        outcomes.map((outcome) => outcome.answer),
        outcomes.map((outcome) => outcome.headers),
      ],
    });
    sent += rows.length;
    return true;
  };
  const started = performance.now();
  const postgresBefore = postgresCpuMicros();
  try {
    await Promise.all(Array.from({ length: batchesAtOnce }, async () => {
      while (await sendBatch());
    }));
    const perSecond = sent / ((performance.now() - started) / 1000);
    // Read before the pool ends: a backend that exits takes its CPU time with it.
    return { perSecond, postgresMicros: postgresCpuMicrosSince(postgresBefore) };
  } finally {
    await http.close();
    await db.end();
  }
}
