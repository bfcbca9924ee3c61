import { randomBytes } from 'node:crypto';
import type { Db, Unlisten } from '../db/connect.js';
import { answerMayBeLost, DatabaseUnavailable } from '../db/unavailable.js';
import { disableWebhook } from '../modules/webhooks/disable.js';
import type { Clock } from '../platform/clock.js';
import type { ResolvedConfig } from '../platform/context.js';
import type { DeliveryStatus } from '../modules/webhooks/schema.js';
import { decryptSecret } from '../platform/crypto.js';
import { disableFailingWebhooks } from './auto-disable.js';
import { deliveriesDueChannel } from './fan-out.js';
import { deliveryPayload } from './payload.js';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDueDeliveries,
  closeLostAttempts,
  recordAttempts,
  recordFailingWebhooks,
  releaseClaim,
  releaseLeases,
  startAttempts,
} from './queue.js';
import { ConcurrencyLimit } from '../platform/concurrency-limit.js';
import { nextScheduledAttempt, retryAfterMs } from './schedule.js';
import { type AttemptOutcome, WebhookSender } from './sender.js';
import { countAttempt, countClosedAttempts } from './attempt-metrics.js';
import { deliveryHeaders } from './signer.js';
import { retryDelayMs, UnsentDeliveries } from './unsent.js';

export interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface DeliveryWorkerOptions {
  db: Db;
  clock: Clock;
  config: Pick<ResolvedConfig, 'secretKey' | 'webhookTimeoutMs' | 'webhookRetryScheduleMs' | 'webhookAllowPrivate'>;
  log?: WorkerLog;
  /** Rows claimed per query. */
  batchSize?: number;
  /** Deliveries this process holds at once (claimed, being sent, or waiting to be recorded), over all webhooks. */
  maxInFlight?: number;
  /** Attempts this process runs at once for one webhook, so one slow endpoint cannot take every slot. */
  perWebhookInFlight?: number;
  /** Polling beside LISTEN/NOTIFY: catches due retries and covers a lost notification. */
  pollIntervalMs?: number;
  /** How long a claim lasts before the delivery is due again (a worker that died mid-attempt). */
  leaseMs?: number;
  /** How often the five-day auto-disable runs. */
  sweepIntervalMs?: number;
  /** Trusted CAs instead of the system's (tests; operators use NODE_EXTRA_CA_CERTS). */
  ca?: string[];
}

/**
 * A webhook may have this many times its in-flight limit claimed, the rest waiting here for a
 * request slot, so that the next attempts are at hand when one ends instead of a claim query away.
 * The claim records every one of them as started in its own statement, so that no attempt waits
 * for a round trip of its own before its request goes out: per batch, one claim and one outcome
 * write. (Claiming more than it started cost each of those a start statement of its own.) Only a
 * delivery the claim could not start (webhook stopped receiving, first attempt not due) is started
 * or given back on its own. The default lease (aheadFactor × timeout + 30 s) covers the longest
 * wait for a slot and the attempt itself.
 */
export const aheadFactor = 4;

/**
 * A busy webhook is refilled once this many rounds of its in-flight limit are free, so that a claim
 * takes two rounds of rows while the round still waiting covers the claim's round trip. Refilled at
 * every free round (with three rounds claimed), the worker ran a third more claims for the same
 * deliveries, each planned afresh (0.7–0.9 ms of PostgreSQL's time) and run: 2,800–3,300 against
 * 3,400–4,300 deliveries/s (BENCHMARKS.md, 2026-12-03 evening).
 */
const refillRounds = 2;

export const defaultPerWebhookInFlight = 32;

/**
 * The deliveries a worker holds in all, by default: three webhooks at their default limit
 * (aheadFactor rounds each) fill it, so that one or two busy webhooks never hold the room another
 * webhook's deliveries are claimed into (the earlier 256 was filled by two at four rounds).
 */
const defaultMaxInFlight = 3 * aheadFactor * defaultPerWebhookInFlight;

const quietLog: WorkerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

const goneReason = 'The endpoint answered 410 Gone.';

interface Finished {
  delivery: ClaimedDelivery;
  token: string;
  record: AttemptRecord;
}

interface Starting {
  delivery: ClaimedDelivery;
  token: string;
  started(number: number | undefined): void;
  failed(error: unknown): void;
}

/**
 * Claims due deliveries from PostgreSQL, signs and sends them, and records every attempt: as
 * started before its request goes out, then with its outcome. Woken by NOTIFY when deliveries are
 * queued, by a poll for retries that come due, and by its own progress; starts and results are
 * written in batches, and a slot is freed only once its attempt is recorded.
 */
export class DeliveryWorker {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: WorkerLog;
  private readonly sender: WebhookSender;
  private readonly schedule: readonly number[];
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly perWebhook: number;
  /** Deliveries of one webhook this worker may hold: aheadFactor rounds of its in-flight limit. */
  private readonly heldPerWebhook: number;
  private readonly leaseMs: number;
  private readonly workerId = randomBytes(6).toString('hex');
  private readonly secrets = new Map<string, string>();
  /** Per webhook: deliveries being handled now (checked, started, sent), and those claimed whose attempt has not ended. */
  private readonly running = new Map<string, number>();
  /** Per webhook: requests out at once. */
  private readonly sending: ConcurrencyLimit;
  private readonly held = new Map<string, number>();
  private readonly waiting = new Map<string, { delivery: ClaimedDelivery; token: string }[]>();
  private finished: Finished[] = [];
  /** Failed tries in a row to record the finished attempts. */
  private flushFailures = 0;
  private readonly unsent: UnsentDeliveries;
  private starting: Starting[] = [];
  private writingStarts = false;
  private claims = 0;
  private attempts = 0;
  private inFlight = 0;
  private pumping = false;
  private pumpAgain = false;
  /**
   * Claims are of two kinds. A search takes the oldest due rows of every webhook with rows queued
   * that is not at its limit (one index probe per webhook, however large its backlog: see
   * claimDueDeliveries); it runs when something may have come due unseen (`wake`: the poll, a
   * notification that names no webhook, deliveries given back, a lost connection), until it finds
   * nothing more. In between, only the webhooks a search found at their limit and those a
   * notification names can have more due rows, and they are refilled from their own rows
   * (`refill`): the busy ones once `refillRounds` rounds of their limit are free, so that their
   * claims are that many rounds of rows each, not one per ended attempt. A storm of events costs
   * claims of its webhooks' rows, not searches whose cost grows with the number of webhooks
   * (BENCHMARKS.md, 2026-11-29).
   */
  private announcements = 0;
  private searchedUpTo = -1;
  private backlogged = new Set<string>();
  /** Webhooks a notification named since they were last refilled: refilled with any room they have, not only a round. */
  private readonly announced = new Set<string>();
  private flushing = false;
  private stopping = false;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: Unlisten | undefined;
  private idleWaiters: (() => void)[] = [];

  private constructor(private readonly options: DeliveryWorkerOptions) {
    const { config } = options;
    this.db = options.db;
    this.clock = options.clock;
    this.log = options.log ?? quietLog;
    this.schedule = config.webhookRetryScheduleMs;
    this.batchSize = options.batchSize ?? 100;
    this.maxInFlight = options.maxInFlight ?? defaultMaxInFlight;
    this.perWebhook = options.perWebhookInFlight ?? defaultPerWebhookInFlight;
    this.heldPerWebhook = this.perWebhook * aheadFactor;
    this.leaseMs = options.leaseMs ?? config.webhookTimeoutMs * aheadFactor + 30_000;
    this.sending = new ConcurrencyLimit(this.perWebhook);
    this.unsent = new UnsentDeliveries(
      this.db,
      (error) => this.log.warn({ err: error }, 'could not give back webhook deliveries that were not sent; retrying'),
      () => this.wake(),
    );
    this.sender = new WebhookSender({
      clock: options.clock,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivate,
      // Not the per-webhook limit: webhooks of different organizations may share a host (a
      // receiver service), and one's slow endpoint must not hold the connections another waits
      // for. Each webhook is kept to its own limit by `sending`; the host to the worker's total.
      connectionsPerOrigin: this.maxInFlight,
      ca: options.ca,
    });
  }

  static async start(options: DeliveryWorkerOptions): Promise<DeliveryWorker> {
    const worker = new DeliveryWorker(options);
    const wake = () => worker.wake();
    worker.unlisten = await options.db.listen(deliveriesDueChannel, (payload) => worker.announce(payload), { onResubscribed: wake });
    worker.timers.push(setInterval(() => worker.wake(), options.pollIntervalMs ?? 1000));
    worker.timers.push(setInterval(() => void worker.sweep(), options.sweepIntervalMs ?? 60_000));
    for (const timer of worker.timers) timer.unref();
    worker.log.info({ workerId: worker.workerId, perWebhookInFlight: worker.perWebhook, leaseMs: worker.leaseMs }, 'webhook delivery worker started');
    worker.wake();
    return worker;
  }

  /** Look for due deliveries now: something may have come due that no claim has looked for. */
  wake(): void {
    this.announcements += 1;
    this.pumpSoon();
  }

  /**
   * A notification of new due deliveries: the webhooks it names are refilled from their own rows,
   * so that one organization's stream of events costs a claim of its webhooks' rows, never a search
   * of the whole queue; one that names none (too many to list) starts a search.
   */
  private announce(payload: string): void {
    if (payload === '') return this.wake();
    for (const webhookId of payload.split(',')) {
      this.backlogged.add(webhookId);
      this.announced.add(webhookId);
    }
    this.pumpSoon();
  }

  private pumpSoon(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    void this.pump();
  }

  /**
   * Closes attempts lost with their workers that no claim has closed yet, and disables the webhooks
   * whose deliveries have all failed for five days; returns the ids of those.
   */
  async sweep(): Promise<string[]> {
    try {
      countClosedAttempts('worker_lost', await closeLostAttempts(this.db, this.clock.now()));
      return await disableFailingWebhooks(this.db, this.clock);
    } catch (error) {
      this.log.error({ err: error }, 'webhook sweep (lost attempts, auto-disable) failed');
      return [];
    }
  }

  /** How many attempts this worker has made since it started. */
  get attemptsMade(): number {
    return this.attempts;
  }

  /** Resolves once nothing is claimed, in flight or waiting to be recorded (tests, shutdown). */
  idle(): Promise<void> {
    if (this.inFlight === 0 && !this.pumping) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops claiming, hands back the deliveries that were claimed but not sent (another worker can
   * take them at once; an attempt started for one is closed as not_sent once the requests ahead of
   * it end), lets requests in flight finish and be recorded, then closes connections.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.unlisten?.();
    await this.handBack();
    const limit = new Promise<void>((resolve) => setTimeout(resolve, this.options.config.webhookTimeoutMs + 5000).unref());
    await Promise.race([this.idle(), limit]);
    await this.unsent.close();
    await this.sender.close();
  }

  private async handBack(): Promise<void> {
    const unstarted = [...this.waiting.values()].flat();
    this.waiting.clear();
    if (unstarted.length === 0) return;
    try {
      await releaseLeases(this.db, unstarted.map(({ delivery, token }) => ({ id: delivery.id, token })));
    } catch (error) {
      this.log.warn({ err: error }, 'could not hand back claimed webhook deliveries; they are due again when their leases end');
    }
    for (const { delivery } of unstarted) count(this.held, delivery.webhookId, -1);
    this.release(unstarted.length);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        while (!this.stopping && this.inFlight < this.maxInFlight) {
          const limit = Math.min(this.batchSize, this.maxInFlight - this.inFlight);
          if (this.searchedUpTo === this.announcements) {
            if (!(await this.refill(limit))) break;
            continue;
          }
          const announcements = this.announcements;
          const passedOver = [...this.held.keys()].filter((webhookId) => this.roomOf(webhookId) <= 0);
          const claimed = await this.claim(limit);
          if (claimed.length === 0) {
            this.searchedUpTo = announcements;
            this.backlogged = new Set([...passedOver, ...this.announced]);
            break;
          }
        }
      } while (this.pumpAgain && !this.stopping);
    } catch (error) {
      this.log.error({ err: error }, 'claiming webhook deliveries failed; retrying at the next poll');
    } finally {
      this.pumping = false;
      this.settleIdle();
    }
  }

  /**
   * Tops up the webhooks that were at their limit when the last search passed over their rows, those
   * with at least `refillRounds` rounds of their limit free, and those a notification named, with
   * any room; each from its own oldest due rows. Answers whether another round may find more. A
   * webhook that had fewer due rows than its room is not asked again until something is announced.
   */
  private async refill(limit: number): Promise<boolean> {
    const rooms = new Map<string, number>();
    for (const webhookId of this.backlogged) {
      const room = this.roomOf(webhookId);
      if (room >= (this.announced.delete(webhookId) ? 1 : this.perWebhook * refillRounds)) rooms.set(webhookId, room);
    }
    if (rooms.size === 0) return false;
    const claimed = await this.claim(limit, rooms);
    // A claim cut short by the worker's own limit says nothing of what is left.
    if (claimed.length === limit) return true;
    const taken = new Map<string, number>();
    for (const delivery of claimed) count(taken, delivery.webhookId, 1);
    for (const [webhookId, room] of rooms) if ((taken.get(webhookId) ?? 0) < room) this.backlogged.delete(webhookId);
    return false;
  }

  /** How many more deliveries of the webhook this worker may hold; at most 0 when it is at its limit. */
  private roomOf(webhookId: string): number {
    return this.heldPerWebhook - (this.held.get(webhookId) ?? 0);
  }

  private async claim(limit: number, refill?: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const token = `${this.workerId}.${++this.claims}`;
    const claimed = await claimDueDeliveries(this.db, {
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs),
      token,
      limit,
      perWebhook: this.heldPerWebhook,
      inFlightByWebhook: this.held,
      startAtOnce: { limit: this.heldPerWebhook, handlingByWebhook: this.running, firstAttemptDelayMs: this.schedule[0] ?? 0 },
      refill,
    }).catch((error: unknown) => {
      // The claim may have been carried out with its answer lost: whatever it took is given back.
      if (answerMayBeLost(error)) this.unsent.claimFailed(token, now);
      throw error;
    });
    const lapsed = claimed.filter((delivery) => delivery.leaseLapsed).map((delivery) => delivery.id);
    if (lapsed.length > 0) {
      await closeLostAttempts(this.db, now, lapsed).then((closed) => countClosedAttempts('worker_lost', closed), (error: unknown) =>
        this.log.warn({ err: error }, 'could not close the attempts of a lost worker; the sweep closes them'),
      );
    }
    for (const delivery of claimed) {
      this.inFlight += 1;
      count(this.held, delivery.webhookId, 1);
      if (delivery.startedAttempt !== undefined) {
        count(this.running, delivery.webhookId, 1);
        void this.handle(delivery, token, delivery.startedAttempt);
        continue;
      }
      const queue = this.waiting.get(delivery.webhookId) ?? [];
      queue.push({ delivery, token });
      this.waiting.set(delivery.webhookId, queue);
    }
    for (const webhookId of new Set(claimed.map((delivery) => delivery.webhookId))) this.startWaiting(webhookId);
    return claimed;
  }

  /**
   * `startedNumber`: the attempt the claim already recorded as started. The webhook's slot is freed
   * when its attempt ends; the worker's slot once the attempt is recorded.
   */
  private async handle(delivery: ClaimedDelivery, token: string, startedNumber?: number): Promise<void> {
    let attempted = false;
    try {
      const number = startedNumber ?? (await this.beginOrGiveBack(delivery, token));
      if (number !== undefined) {
        attempted = true;
        let outcome: AttemptOutcome | undefined;
        try {
          outcome = await this.sending.run(delivery.webhookId, () => this.attempt(delivery));
        } finally {
          this.endAttempt(delivery.webhookId);
        }
        if (outcome !== undefined) {
          this.finished.push({ delivery, token, record: this.recordFor(delivery, token, number, outcome) });
          this.flush();
          return;
        }
        // The worker is stopping and this request never left: its attempt is closed as not_sent and
        // the delivery given back, so that another worker takes it at once.
        this.unsent.hold(delivery.id, token);
      }
    } catch (error) {
      // Nothing was sent: when the database failed to answer, the delivery is given back (its start,
      // if it was written, closed as not_sent) once it answers again, instead of when the lease ends.
      // Any other error would come back at once, so the lease paces it.
      const giveBack = !attempted && error instanceof DatabaseUnavailable;
      this.log.error(
        { err: error, deliveryId: delivery.id },
        giveBack ? 'webhook delivery could not be started; it is given back once the database answers' : 'webhook delivery could not be handled; it is due again when its lease ends',
      );
      if (giveBack) this.unsent.hold(delivery.id, token);
    }
    if (!attempted) this.endAttempt(delivery.webhookId);
    this.release(1);
  }

  /**
   * Records the attempt as started and answers its number; undefined when there is none to make:
   * the webhook stopped receiving or the first attempt is not due yet (the claim is given back), or
   * another worker holds the delivery now.
   */
  private async beginOrGiveBack(delivery: ClaimedDelivery, token: string): Promise<number | undefined> {
    const now = this.clock.now();
    const firstDue = new Date(delivery.createdAt.getTime() + (this.schedule[0] ?? 0));
    if (!delivery.webhookActive) {
      await releaseClaim(this.db, delivery.id, token, { status: delivery.status === 'pending' ? 'failed' : delivery.status, nextAttemptAt: null }, now);
      return undefined;
    }
    if (delivery.trigger === 'scheduled' && delivery.scheduledAttempts === 0 && firstDue > now) {
      await releaseClaim(this.db, delivery.id, token, { status: delivery.status, nextAttemptAt: firstDue }, now);
      return undefined;
    }
    return this.begin(delivery, token);
  }

  /** The attempt's number once it is recorded as started; undefined if another worker holds the delivery now. */
  private begin(delivery: ClaimedDelivery, token: string): Promise<number | undefined> {
    return new Promise((started, failed) => {
      this.starting.push({ delivery, token, started, failed });
      this.writeStarts();
    });
  }

  /** Records every attempt about to start in one statement; more gather while it runs. */
  private writeStarts(): void {
    if (this.writingStarts || this.starting.length === 0) return;
    this.writingStarts = true;
    const batch = this.starting;
    this.starting = [];
    const now = this.clock.now();
    const starts = batch.map(({ delivery, token }) => ({ deliveryId: delivery.id, token, trigger: delivery.trigger }));
    startAttempts(this.db, starts, now, new Date(now.getTime() + this.leaseMs))
      .then(
        (numbers) => {
          for (const item of batch) item.started(numbers.get(item.delivery.id));
        },
        (error: unknown) => {
          for (const item of batch) item.failed(error);
        },
      )
      .finally(() => {
        this.writingStarts = false;
        this.writeStarts();
      });
  }

  /** The attempt's outcome; undefined, with nothing sent, once the worker is stopping. */
  private async attempt(delivery: ClaimedDelivery): Promise<AttemptOutcome | undefined> {
    if (this.stopping) return undefined;
    const now = this.clock.now();
    const secrets = [this.secret(delivery.secretSealed)];
    if (delivery.previousSecretSealed && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > now) {
      secrets.push(this.secret(delivery.previousSecretSealed));
    }
    this.attempts += 1;
    const body = JSON.stringify(deliveryPayload(delivery.event, delivery.orgId, delivery.eventAt, delivery.eventData));
    const headers = deliveryHeaders({ deliveryId: delivery.id, event: delivery.event, body, timestamp: Math.floor(now.getTime() / 1000), secrets });
    const outcome = await this.sender.send({ url: delivery.url, headers, body });
    countAttempt(outcome);
    return outcome;
  }

  private recordFor(delivery: ClaimedDelivery, token: string, number: number, outcome: AttemptOutcome): AttemptRecord {
    const { status, nextAttemptAt } = this.stateAfter(delivery, outcome);
    return { deliveryId: delivery.id, number, token, trigger: delivery.trigger, scheduled: delivery.trigger === 'scheduled', outcome, status, nextAttemptAt };
  }

  /** The delivery's state after an attempt: delivered, the next scheduled attempt, or failed. */
  private stateAfter(delivery: ClaimedDelivery, outcome: AttemptOutcome): { status: DeliveryStatus; nextAttemptAt: Date | null } {
    const succeeded = outcome.error === null && outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300;
    if (succeeded) return { status: 'delivered', nextAttemptAt: null };
    if (outcome.httpStatus === 410) return { status: delivery.status === 'delivered' ? 'delivered' : 'failed', nextAttemptAt: null };
    const now = this.clock.now();
    const wait = retryAfterMs(outcome.httpStatus, outcome.retryAfter, now);
    if (delivery.trigger === 'scheduled') {
      const next = nextScheduledAttempt(this.schedule, delivery.scheduledAttempts + 1, now, wait);
      return { status: next ? 'pending' : 'failed', nextAttemptAt: next };
    }
    if (delivery.status !== 'pending') return { status: delivery.status, nextAttemptAt: null };
    const next = nextScheduledAttempt(this.schedule, delivery.scheduledAttempts, now, wait);
    return { status: next ? 'pending' : 'failed', nextAttemptAt: next };
  }

  /** Writes every finished attempt waiting so far in one transaction; more gather while it runs. */
  private flush(): void {
    if (this.flushing || this.finished.length === 0) return;
    this.flushing = true;
    const batch = this.finished;
    this.finished = [];
    this.write(batch).then(
      () => {
        this.flushing = false;
        this.flushFailures = 0;
        this.release(batch.length);
        this.flush();
      },
      (error: unknown) => {
        this.log.error({ err: error, attempts: batch.length }, 'recording webhook attempts failed; retrying');
        this.finished = [...batch, ...this.finished];
        // Recording the outcome also ends the lease: retried soon, so the delivery is not held long after the database is back.
        this.flushFailures += 1;
        setTimeout(() => {
          this.flushing = false;
          this.flush();
        }, retryDelayMs(this.flushFailures)).unref();
      },
    );
  }

  private async write(batch: Finished[]): Promise<void> {
    const now = this.clock.now();
    const succeeded = new Set<string>();
    const failing = new Map<string, Date>();
    for (const { delivery, record } of batch) {
      if (record.status === 'delivered' && record.outcome.error === null) succeeded.add(delivery.webhookId);
      else if (!failing.has(delivery.webhookId)) failing.set(delivery.webhookId, record.outcome.startedAt);
    }
    for (const webhookId of succeeded) failing.delete(webhookId);
    const gone = batch.filter(({ record }) => record.outcome.httpStatus === 410);
    const records = batch.map((item) => item.record);
    // The common case, every attempt a success, is one statement and needs no transaction.
    if (failing.size === 0 && gone.length === 0) return recordAttempts(this.db, records, now, [...succeeded]);
    await this.db.transaction(async (tx) => {
      await recordAttempts(tx, records, now, [...succeeded]);
      await recordFailingWebhooks(tx, [...failing].map(([webhookId, since]) => ({ webhookId, since })));
      for (const { delivery } of gone) await disableWebhook(tx, this.clock, delivery.orgId, delivery.webhookId, goneReason);
    });
  }

  /** Starts the webhook's waiting deliveries while it has free slots. */
  private startWaiting(webhookId: string): void {
    const queue = this.waiting.get(webhookId);
    while (queue && queue.length > 0 && (this.running.get(webhookId) ?? 0) < this.heldPerWebhook) {
      const next = queue.shift()!;
      count(this.running, webhookId, 1);
      void this.handle(next.delivery, next.token);
    }
    if (queue?.length === 0) this.waiting.delete(webhookId);
  }

  private endAttempt(webhookId: string): void {
    count(this.running, webhookId, -1);
    count(this.held, webhookId, -1);
    this.startWaiting(webhookId);
    this.pumpSoon();
  }

  private release(count: number): void {
    this.inFlight -= count;
    this.settleIdle();
    this.pumpSoon();
  }

  private settleIdle(): void {
    if (this.inFlight !== 0 || this.pumping) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private secret(sealed: string): string {
    let plain = this.secrets.get(sealed);
    if (plain === undefined) {
      if (this.secrets.size > 10_000) this.secrets.clear();
      plain = decryptSecret(this.options.config.secretKey, sealed);
      this.secrets.set(sealed, plain);
    }
    return plain;
  }
}

function count(counts: Map<string, number>, key: string, change: number): void {
  const value = (counts.get(key) ?? 0) + change;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}
