import type { Queryable } from '../../db/connect.js';
import { PeriodicFlush } from '../../platform/periodic-flush.js';
import { addUsage, type UsageIncrement } from './store.js';

const dayMs = 86_400_000;

/**
 * Counts API requests, AI questions and tokens in memory and adds them to `usage_daily` in one
 * statement every few seconds, so counting costs a map update per request, not a write.
 */
export class UsageMeter extends PeriodicFlush {
  /** Day number (days since 1970-01-01 UTC) → organization → counts. */
  private pending = new Map<number, Map<string, UsageIncrement>>();

  constructor(
    private readonly db: Queryable,
    intervalMs = 5_000,
  ) {
    super(intervalMs);
  }

  private entry(orgId: string, at: Date): UsageIncrement {
    const day = Math.floor(at.getTime() / dayMs);
    let orgs = this.pending.get(day);
    if (!orgs) {
      orgs = new Map();
      this.pending.set(day, orgs);
    }
    let counts = orgs.get(orgId);
    if (!counts) {
      counts = { orgId, day: new Date(day * dayMs).toISOString().slice(0, 10), apiRequests: 0, aiQuestions: 0, tokens: 0 };
      orgs.set(orgId, counts);
    }
    return counts;
  }

  countRequest(orgId: string, at: Date): void {
    this.entry(orgId, at).apiRequests += 1;
  }

  countQuestion(orgId: string, at: Date, tokens: number): void {
    const counts = this.entry(orgId, at);
    counts.aiQuestions += 1;
    counts.tokens += tokens;
  }

  /** Writes what was counted; on failure the counts go back into the next batch. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()].flatMap((orgs) => [...orgs.values()]);
    this.pending = new Map();
    try {
      await addUsage(this.db, batch);
    } catch (error) {
      for (const counts of batch) {
        const into = this.entry(counts.orgId, new Date(`${counts.day}T00:00:00.000Z`));
        into.apiRequests += counts.apiRequests;
        into.aiQuestions += counts.aiQuestions;
        into.tokens += counts.tokens;
      }
      throw error;
    }
  }
}
