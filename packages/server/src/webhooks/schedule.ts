/** A receiver's Retry-After may push an attempt later than the schedule, but never past this. */
export const retryAfterCapMs = 60 * 60 * 1000;

/** Only these statuses carry a Retry-After that Vigil honours. */
const retryAfterStatuses = new Set([429, 503]);

/**
 * When the next scheduled attempt is due after `scheduledDone` scheduled attempts have failed, or
 * null when that was the last one (the schedule's length is the number of attempts, 5 by default).
 * `schedule[i]` is the wait before attempt i + 1, counted from the end of the attempt before it.
 */
export function nextScheduledAttempt(
  schedule: readonly number[],
  scheduledDone: number,
  finishedAt: Date,
  retryAfterMs?: number,
): Date | null {
  if (scheduledDone >= schedule.length) return null;
  const wait = Math.max(schedule[scheduledDone] ?? 0, Math.min(retryAfterMs ?? 0, retryAfterCapMs));
  return new Date(finishedAt.getTime() + wait);
}

/** Retry-After in milliseconds (delay-seconds or an HTTP date), for the statuses that carry one. */
export function retryAfterMs(status: number | null, header: string | undefined, now: Date): number | undefined {
  if (status === null || !retryAfterStatuses.has(status) || !header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
