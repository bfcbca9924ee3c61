/** Thrown when a piece of work waited its longest for a turn and got none. */
export class NoTurnInTime extends Error {
  constructor(
    readonly waitedMs: number,
    waitingFor: string,
  ) {
    super(`Busy: every ${waitingFor} stayed taken for ${waitedMs} ms; try again in a moment.`);
    this.name = 'NoTurnInTime';
  }
}

/**
 * At most `perKey` pieces of work at once for one key (an organization, a webhook, or one key for
 * the whole process); the rest wait their turn in order, for at most `maxWait.ms` when it is given
 * (then NoTurnInTime, naming what they waited for). Project SQL runs through two of these (per
 * organization, and the pool's connections); webhook requests through one per webhook.
 */
export class ConcurrencyLimit {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(
    readonly perKey: number,
    private readonly maxWait?: { ms: number; waitingFor: string },
  ) {}

  /** How many of the key's pieces of work are running and waiting now. */
  load(key: string): { running: number; waiting: number } {
    return { running: this.running.get(key) ?? 0, waiting: this.waiting.get(key)?.length ?? 0 };
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    // A finishing piece of work hands its place straight to the next in line, so none can jump the queue.
    if ((this.running.get(key) ?? 0) >= this.perKey) await this.turn(key);
    else this.running.set(key, (this.running.get(key) ?? 0) + 1);
    try {
      return await work();
    } finally {
      this.release(key);
    }
  }

  private turn(key: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      const timer =
        this.maxWait === undefined
          ? undefined
          : setTimeout(() => {
              this.leave(key, go);
              reject(new NoTurnInTime(this.maxWait!.ms, this.maxWait!.waitingFor));
            }, this.maxWait.ms);
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      queue.push(go);
      this.waiting.set(key, queue);
    });
  }

  private leave(key: string, waiter: () => void): void {
    const queue = this.waiting.get(key) ?? [];
    queue.splice(queue.indexOf(waiter), 1);
    if (queue.length === 0) this.waiting.delete(key);
  }

  private release(key: string): void {
    const next = this.waiting.get(key)?.[0];
    if (next) {
      this.leave(key, next);
      return next();
    }
    const left = (this.running.get(key) ?? 1) - 1;
    if (left === 0) this.running.delete(key);
    else this.running.set(key, left);
  }
}
