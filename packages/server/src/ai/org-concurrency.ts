/**
 * At most `perOrg` pieces of work at once for one organization; the rest wait their turn in
 * order. The model's SQL runs through this, so one organization's questions, however many and
 * however slow, hold at most `perOrg` database connections and leave the others to everyone else.
 */
export class OrgConcurrency {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(readonly perOrg: number) {}

  /** How many of the organization's pieces of work are running and waiting now. */
  load(orgId: string): { running: number; waiting: number } {
    return { running: this.running.get(orgId) ?? 0, waiting: this.waiting.get(orgId)?.length ?? 0 };
  }

  async run<T>(orgId: string, work: () => Promise<T>): Promise<T> {
    if ((this.running.get(orgId) ?? 0) >= this.perOrg) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(orgId) ?? [];
        queue.push(resolve);
        this.waiting.set(orgId, queue);
      });
    }
    this.running.set(orgId, (this.running.get(orgId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      this.release(orgId);
    }
  }

  private release(orgId: string): void {
    const left = (this.running.get(orgId) ?? 1) - 1;
    if (left === 0) this.running.delete(orgId);
    else this.running.set(orgId, left);
    const queue = this.waiting.get(orgId);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(orgId);
    next?.();
  }
}
