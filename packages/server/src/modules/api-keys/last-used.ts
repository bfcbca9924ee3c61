import type { Queryable } from '../../db/connect.js';
import { PeriodicFlush } from '../../platform/periodic-flush.js';
import { recordLastUsed } from './store.js';

/**
 * Remembers when each key was last used and writes those times in one batch every few seconds,
 * instead of one UPDATE per request.
 */
export class LastUsedRecorder extends PeriodicFlush {
  private pending = new Map<string, Date>();

  constructor(
    private readonly db: Queryable,
    intervalMs = 5_000,
  ) {
    super(intervalMs);
  }

  touch(keyId: string, at: Date): void {
    this.pending.set(keyId, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await recordLastUsed(this.db, batch);
  }
}
