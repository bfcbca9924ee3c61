import type { Queryable } from '../../db/connect.js';
import { recordLastUsed } from './store.js';

/**
 * Remembers when each key was last used and writes those times in one batch every few seconds,
 * instead of one UPDATE per request.
 */
export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Queryable,
    intervalMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), intervalMs);
    this.timer.unref();
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

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
