import { copyRows, type Db } from '../db/connect.js';

const needsEscape = /[\\\t\n\r\0]/;

/** A value in COPY text format; null is \N. NUL characters cannot be stored in PostgreSQL text and are dropped. */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  if (!needsEscape.test(value)) return value;
  return value.replace(/\0/g, '').replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/**
 * Collects rows and sends them with COPY in batches, one batch in flight while the next is
 * collected, so parsing and loading overlap and memory stays at about two batches.
 */
export class CopyBatcher {
  private lines: string[] = [];
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly target: string,
    private readonly batchRows = 4000,
  ) {}

  /** A row in COPY text format: its fields (already escaped by copyField) separated by tabs, without the ending newline. */
  addLine(line: string): void {
    this.lines.push(line);
  }

  /** Sends the collected rows once a batch is full. */
  async sendWhenFull(): Promise<void> {
    if (this.lines.length >= this.batchRows) await this.send();
  }

  /** Waits until every row added so far is in the table. */
  async drain(): Promise<void> {
    await this.send();
    await this.inFlight;
  }

  private async send(): Promise<void> {
    await this.inFlight;
    if (this.lines.length === 0) return;
    const payload = `${this.lines.join('\n')}\n`;
    this.lines = [];
    this.inFlight = copyRows(this.db, this.target, payload);
    // Awaited by the next send or drain; marked handled so a failure in between is not reported twice.
    this.inFlight.catch(() => undefined);
  }
}
