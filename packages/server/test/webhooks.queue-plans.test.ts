import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../src/db/connect.js';
import { type NamedStatement, statementText } from '../src/db/named-statement.js';
import { OrganizationService } from '../src/modules/organizations/service.js';
import { WebhookService } from '../src/modules/webhooks/service.js';
import { systemClock } from '../src/platform/clock.js';
import { type AttemptRecord, type ClaimedDelivery, type ClaimRequest, claimDueDeliveries, recordAttempts } from '../src/webhooks/queue.js';
import { testConfig } from './support/app.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';

/** A queue as a burst leaves it: many rows, and no statistics yet (autovacuum has not analyzed them). */
const queued = 20_000;
const pastAttempts = 20_000;

interface PlanLine {
  'QUERY PLAN': string;
}

/** The plans of the statements `work` runs, each handed to `explain` instead of run. */
async function explained(
  work: (explaining: Queryable) => Promise<unknown>,
  explain: (sql: string, params: readonly unknown[]) => Promise<PlanLine[]>,
): Promise<string[]> {
  const plans: string[] = [];
  const explaining: Queryable = {
    query: async <Row>(sql: string | NamedStatement, params: readonly unknown[] = []) => {
      const lines = await explain(statementText(sql), params);
      plans.push(lines.map((line) => line['QUERY PLAN']).join('\n'));
      return [] as Row[];
    },
    exec: () => Promise.reject(new Error('not explained')),
  };
  await work(explaining);
  return plans;
}

/** The plans of the statements `work` runs (with `ANALYZE` among the options: run too). */
const plansOf = (db: Queryable, work: (explaining: Queryable) => Promise<unknown>, options = '') =>
  explained(work, (sql, params) => db.query<PlanLine>(`EXPLAIN ${options} ${sql}`, params));

/** A parameter written into the SQL, as pg would send it: EXECUTE's arguments cannot be bound. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map((item) => `"${String(item).replace(/["\\]/g, '\\$&')}"`).join(',')}}`);
  return pg.escapeLiteral(String(value));
}

/**
 * The generic plans of the statements `work` runs: what PostgreSQL runs a NamedStatement with once
 * it judges a generic plan no costlier than planning it anew for its parameters (db/named-statement.ts).
 */
const genericPlansOf = (db: Db, work: (explaining: Queryable) => Promise<unknown>) =>
  explained(work, (sql, params) =>
    db.transaction(async (tx) => {
      await tx.exec('SET LOCAL plan_cache_mode = force_generic_plan');
      await tx.exec(`PREPARE generic_plan AS ${sql}`);
      const lines = await tx.query<PlanLine>(`EXPLAIN EXECUTE generic_plan (${params.map(literal).join(', ')})`);
      await tx.exec('DEALLOCATE generic_plan');
      return lines;
    }),
  );

/**
 * The queue's statements read the rows they change through their indexes, whatever the table's
 * size and statistics: a plan that reads the whole queue or every attempt ever made costs each
 * claim and each batch of outcomes time in proportion to the backlog (2026-11-29: the outcomes'
 * statement scanned 20,000 deliveries and every attempt once per batch of 35 right after a burst).
 */
describe.each(databaseKinds())('webhook queue plans on %s', (kind) => {
  let database: TestDatabase;
  let webhookId: string;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    const ctx = { db: database.db, clock: systemClock, config: testConfig({ webhookAllowPrivate: true }) };
    const { org } = await new OrganizationService(ctx).create({ name: 'Plans', plan: 'enterprise' });
    const hook = await new WebhookService(ctx).create(org.id, { name: 'plans', url: 'https://127.0.0.1:9/hook', events: ['project.updated'] });
    webhookId = hook.id;
    await database.db.query(
      `INSERT INTO events (id, org_id, type, data, created_at)
       SELECT 'evt_plan' || n, $1, 'project.updated', '{}'::jsonb, now() - interval '1 hour' FROM generate_series(1, $2::int) AS n`,
      [org.id, queued + pastAttempts],
    );
    await database.db.query(
      `INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status, next_attempt_at, created_at, updated_at)
       SELECT 'whd_plan' || n, $1, $2, 'evt_plan' || n, 'project.updated',
         CASE WHEN n <= $3 THEN 'pending' ELSE 'delivered' END, CASE WHEN n <= $3 THEN now() - interval '1 minute' END, now(), now()
       FROM generate_series(1, $4::int) AS n`,
      [org.id, webhookId, queued, queued + pastAttempts],
    );
    await database.db.query(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, http_status)
       SELECT 'whd_plan' || n, 1, 'scheduled', now(), 5, 200 FROM generate_series($1::int + 1, $1::int + $2::int) AS n`,
      [queued, pastAttempts],
    );
  }, 120_000);
  afterAll(() => database?.drop());

  /** A worker's claim with the webhook holding `held` of its 96 (3 × 32). */
  const claimRequest = (now: Date, token: string, held: number): ClaimRequest => ({
    now,
    leaseUntil: new Date(now.getTime() + 60_000),
    token,
    limit: 100,
    perWebhook: 96,
    inFlightByWebhook: new Map([[webhookId, held]]),
  });
  const claim = (db: Queryable, now: Date) =>
    claimDueDeliveries(db, {
      ...claimRequest(now, `plans.${now.getTime()}`, 61),
      startAtOnce: { limit: 96, handlingByWebhook: new Map([[webhookId, 61]]), firstAttemptDelayMs: 0 },
    });

  it('searches every webhook from its own end of the queue', async () => {
    const [plan] = await plansOf(database.db, (explaining) => claim(explaining, new Date()));
    expect(plan).toMatch(/Index (Only )?Scan using webhook_deliveries_due_by_webhook/);
    expect(plan).not.toMatch(/webhook_deliveries_due on|Seq Scan on webhook_deliveries/);
  });

  it('passes over a webhook at its limit without reading its backlog', async () => {
    const ctx = { db: database.db, clock: systemClock, config: testConfig({ webhookAllowPrivate: true }) };
    const { org } = await new OrganizationService(ctx).create({ name: 'Other', plan: 'enterprise' });
    const other = await new WebhookService(ctx).create(org.id, { name: 'other', url: 'https://127.0.0.1:9/other', events: ['project.updated'] });
    await database.db.query(`INSERT INTO events (id, org_id, type, data, created_at) VALUES ('evt_plan_other', $1, 'project.updated', '{}'::jsonb, now())`, [org.id]);
    await database.db.query(
      `INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status, next_attempt_at, created_at, updated_at)
       VALUES ('whd_plan_other', $1, $2, 'evt_plan_other', 'project.updated', 'pending', now() - interval '1 second', now(), now())`,
      [org.id, other.id],
    );
    try {
      await searchPassingOver();
    } finally {
      // The other tests' claims find only their own webhook's rows.
      await database.db.query(`DELETE FROM webhook_deliveries WHERE id = 'whd_plan_other'`);
    }
  });

  async function searchPassingOver() {
    const search = claimRequest(new Date(), 'plans.passing', 96);
    // Run and measured, then rolled back: the claim below takes the same row.
    const rolledBack = new Error('rolled back');
    let analyzed = '';
    await database.db
      .transaction(async (tx) => {
        [analyzed] = await plansOf(tx, (explaining) => claimDueDeliveries(explaining, search), '(ANALYZE, BUFFERS, COSTS OFF)');
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
    // The old search read the 20,000 due rows of the webhook at its limit to find the other one's row.
    const pagesRead = [...analyzed.matchAll(/Buffers: shared hit=(\d+)(?: read=(\d+))?/g)].map((match) => Number(match[1]) + Number(match[2] ?? 0));
    expect(Math.max(...pagesRead)).toBeLessThan(200);
    const claimed = await claimDueDeliveries(database.db, { ...search, token: 'plans.passing.2' });
    expect(claimed.map((delivery) => delivery.id)).toEqual(['whd_plan_other']);
  }

  it('refills a webhook from its own rows, passing over no other row', async () => {
    const now = new Date();
    const [plan] = await plansOf(database.db, (explaining) =>
      claimDueDeliveries(explaining, { ...claimRequest(now, 'plans.refill', 61), refill: new Map([[webhookId, 35]]) }),
    );
    expect(plan).toMatch(/Index Scan using webhook_deliveries_due_by_webhook/);
    expect(plan).not.toMatch(/webhook_deliveries_due on|Seq Scan on webhook_deliveries/);
  });

  // Not asserted for webhook_attempts: without statistics PostgreSQL takes `delivery_id = ANY (…)`
  // for 0.5 % of the table per id, and a young table is read whole either way; with statistics
  // (a table past autovacuum's first analyze) it takes the primary key.
  it('records a batch of outcomes reading only the deliveries it records', async () => {
    const now = new Date();
    const claimed = await claim(database.db, now);
    expect(claimed).toHaveLength(35);
    const [plan] = await plansOf(database.db, (explaining) => recordAttempts(explaining, outcomesOf(claimed, `plans.${now.getTime()}`, now), new Date(), [webhookId]));
    expect(plan).toMatch(/Index Scan on webhook_deliveries_pkey/);
    expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
  });

  // On PostgreSQL the claim and the outcomes are named statements, which may run a generic plan.
  if (kind === 'postgres') {
    it('keeps to the indexes in the generic plans of the claim and the outcomes', async () => {
      const now = new Date();
      const [search] = await genericPlansOf(database.db, (explaining) => claim(explaining, now));
      const [refill] = await genericPlansOf(database.db, (explaining) =>
        claimDueDeliveries(explaining, { ...claimRequest(now, 'plans.generic', 61), refill: new Map([[webhookId, 35]]) }),
      );
      for (const plan of [search, refill]) {
        expect(plan).toMatch(/Index (Only )?Scan using webhook_deliveries_due_by_webhook/);
        expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
      }
      const claimed = await claim(database.db, now);
      expect(claimed).toHaveLength(35);
      const [outcomes] = await genericPlansOf(database.db, (explaining) => recordAttempts(explaining, outcomesOf(claimed, `plans.${now.getTime()}`, now), now, [webhookId]));
      expect(outcomes).toMatch(/Index Scan (on|using) webhook_deliveries_pkey/);
      expect(outcomes).not.toMatch(/Seq Scan on webhook_deliveries/);
    });
  }
});

/** A success for each claimed delivery, as the worker records it. */
function outcomesOf(claimed: ClaimedDelivery[], token: string, now: Date): AttemptRecord[] {
  return claimed.map((delivery) => ({
    deliveryId: delivery.id,
    number: delivery.startedAttempt!,
    token,
    trigger: delivery.trigger,
    scheduled: true,
    status: 'delivered',
    nextAttemptAt: null,
    outcome: {
      startedAt: now,
      durationMs: 3,
      httpStatus: 200,
      error: null,
      errorDetail: null,
      responseBody: 'ok',
      retryAfter: undefined,
      requestHeaders: { 'content-type': 'application/json' },
    },
  }));
}
