import { setTimeout as sleep } from 'node:timers/promises';
import { type JobRunner, periodically } from './data/jobs.js';
import { deleteSettledEvents } from './events/outbox.js';
import type { ExportService } from './modules/exports/service.js';
import { deleteFinishedDeliveries } from './modules/webhooks/delivery-store.js';
import type { ServiceContext } from './platform/context.js';
import { deleteExpiredKeys } from './platform/idempotency-store.js';

const dayMs = 24 * 60 * 60 * 1000;

export interface Pruned {
  deliveries: number;
  exports: number;
  idempotencyKeys: number;
  events: number;
}

export interface RetentionOptions {
  /** Rows one statement deletes: few enough that each holds its locks only briefly. */
  batchSize?: number;
  /** The wait after a full batch before the next, so that a backlog does not keep the database busy. */
  pauseMs?: number;
  /** How often the worker looks for rows to prune. */
  everyMs?: number;
}

/**
 * Keeps what Vigil records from growing for ever: finished webhook deliveries (with their
 * attempts), finished exports (with their files) and events no delivery needs any more, older
 * than VIGIL_RETENTION_DAYS, and idempotency keys past their 24 hours. Run by the worker's job loop, one batch of each per turn,
 * each batch its own short statement; while batches come back full it goes on after a pause.
 */
export class RetentionSweeper implements JobRunner {
  readonly name = 'retention';
  private readonly due: () => boolean;
  private readonly batchSize: number;
  private readonly pauseMs: number;
  private backlog = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly exports: ExportService,
    options: RetentionOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.pauseMs = options.pauseMs ?? 200;
    this.due = periodically(ctx.clock, options.everyMs ?? 10 * 60 * 1000);
  }

  async runNext(): Promise<boolean> {
    if (!this.backlog && !this.due()) return false;
    const pruned = await this.pruneBatch();
    if (this.backlog) await sleep(this.pauseMs);
    return Object.values(pruned).some((count) => count > 0);
  }

  /** Deletes one batch of each kind of expired record; how many of each. */
  async pruneBatch(): Promise<Pruned> {
    const now = this.ctx.clock.now();
    const before = new Date(now.getTime() - this.ctx.config.retentionDays * dayMs);
    const pruned = {
      deliveries: await deleteFinishedDeliveries(this.ctx.db, before, this.batchSize),
      exports: await this.exports.deleteFinished(before, this.batchSize),
      idempotencyKeys: await deleteExpiredKeys(this.ctx.db, now, this.batchSize),
      // After the deliveries: an event goes once the last delivery of it has.
      events: await deleteSettledEvents(this.ctx.db, before, this.batchSize),
    };
    this.backlog = Object.values(pruned).some((count) => count === this.batchSize);
    return pruned;
  }
}
