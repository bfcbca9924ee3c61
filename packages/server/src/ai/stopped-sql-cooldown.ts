import type { Clock } from '../platform/clock.js';

/**
 * How long an organization whose project SQL ran past its limit on the embedded database is
 * refused project SQL. Stopping that statement ended the database's thread and every tenant
 * waited for the reopen; the pause keeps one organization from doing it again and again.
 */
export const stoppedSqlCooldownMs = 5 * 60_000;

/** The organization's project SQL is paused after one of its statements was stopped. */
export class ProjectSqlPaused extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(
      `Refused: a statement of this organization ran past its time limit and was stopped, which made the embedded database restart; ` +
        `project SQL (questions and SQL widgets) is paused for this organization for ${retryAfterSeconds} more seconds.`,
    );
    this.name = 'ProjectSqlPaused';
  }
}

/** Which organizations are paused, until when (in this process: the embedded database has one). */
export class StoppedSqlCooldown {
  private readonly pausedUntil = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  pause(orgId: string): void {
    this.pausedUntil.set(orgId, this.clock.now().getTime() + stoppedSqlCooldownMs);
  }

  /** Throws ProjectSqlPaused while the organization's pause lasts. */
  assertAllowed(orgId: string): void {
    const until = this.pausedUntil.get(orgId);
    if (until === undefined) return;
    const leftMs = until - this.clock.now().getTime();
    if (leftMs <= 0) {
      this.pausedUntil.delete(orgId);
      return;
    }
    throw new ProjectSqlPaused(Math.ceil(leftMs / 1000));
  }
}
