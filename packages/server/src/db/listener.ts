import pg from 'pg';

export interface ListenOptions {
  /**
   * Called after the session was lost and LISTEN is in place again, before any NOTIFY of the new
   * session is handed on. NOTIFYs sent meanwhile were not delivered, so a listener that wakes on
   * them should look for work now.
   */
  onResubscribed?: () => void;
}

/** Reconnection waits: 100 ms doubling up to 5 s, each with up to 50 % random jitter off. */
const firstRetryMs = 100;
const longestRetryMs = 5_000;
/** A frozen server keeps the socket open and silent: a `SELECT 1` this often finds it out. */
const heartbeatEveryMs = 10_000;
const heartbeatTimeoutMs = 5_000;

const ignore = () => undefined;

/**
 * One LISTEN session that outlives restarts of PostgreSQL. pg's Client does not reconnect (and a
 * pooled connection would be handed to other queries), so this keeps its own session: when it
 * ends or stops answering its heartbeat, it opens a new one with back-off and re-subscribes.
 */
export class PostgresListener {
  private client: pg.Client | undefined;
  private closed = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(
    private readonly newClient: () => pg.Client,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly options: ListenOptions,
  ) {
    this.heartbeat = setInterval(() => this.checkAlive(), heartbeatEveryMs);
    this.heartbeat.unref();
  }

  /** Subscribes once; a database unreachable at this point is the caller's error. */
  static async start(newClient: () => pg.Client, channel: string, onNotify: (payload: string) => void, options: ListenOptions = {}): Promise<PostgresListener> {
    const listener = new PostgresListener(newClient, channel, onNotify, options);
    try {
      const handOn = await listener.subscribe();
      handOn();
    } catch (error) {
      await listener.close();
      throw error;
    }
    return listener;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(ignore);
  }

  /**
   * A new session LISTENing. Its NOTIFYs are held until the returned function is called: one can
   * come in the same packet as LISTEN's answer, and after a reconnect the caller must hear
   * `onResubscribed` (and read back what it missed) before anything committed later.
   */
  private async subscribe(): Promise<() => void> {
    const client = this.newClient();
    let held: string[] | undefined = [];
    client.on('notification', (message) => {
      if (message.channel !== this.channel) return;
      if (held) held.push(message.payload ?? '');
      else this.onNotify(message.payload ?? '');
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch (error) {
      await client.end().catch(ignore);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(ignore);
      return ignore;
    }
    this.client = client;
    return () => {
      const heard = held ?? [];
      held = undefined;
      for (const payload of heard) this.onNotify(payload);
    };
  }

  private lost(client: pg.Client): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    client.end().catch(ignore);
    this.retryLater();
  }

  private retryLater(): void {
    const ceiling = Math.min(longestRetryMs, firstRetryMs * 2 ** this.failures);
    this.failures += 1;
    this.retryTimer = setTimeout(() => void this.resubscribe(), ceiling * (0.5 + Math.random() / 2));
    this.retryTimer.unref();
  }

  private async resubscribe(): Promise<void> {
    if (this.closed) return;
    let handOn: () => void;
    try {
      handOn = await this.subscribe();
    } catch {
      if (!this.closed) this.retryLater();
      return;
    }
    if (this.closed) return;
    this.failures = 0;
    this.options.onResubscribed?.();
    handOn();
  }

  private checkAlive(): void {
    const client = this.client;
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no answer to the heartbeat')), heartbeatTimeoutMs);
    });
    Promise.race([client.query('SELECT 1'), silent])
      .catch(() => this.lost(client))
      .finally(() => clearTimeout(timer));
  }
}
