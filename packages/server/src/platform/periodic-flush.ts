/**
 * Base for in-memory tallies written to the database in batches: `flush` runs every interval in
 * the background (without keeping the process alive) and once more on close, so nothing counted
 * is lost at shutdown.
 */
export abstract class PeriodicFlush {
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  abstract flush(): Promise<void>;

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
