import type { LoadingDb } from '../db/connect.js';

const needsEscape = /[\\\t\n\r\0]/;

/** A value in COPY text format; null is \N. NUL characters cannot be stored in PostgreSQL text and are dropped. */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  if (!needsEscape.test(value)) return value;
  return value.replace(/\0/g, '').replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** A batch is sent once it holds this many rows or bytes. */
const batchRows = 4000;
const batchBytes = 4 * 1024 * 1024;
/** Enough for a batch of rows of about 100 bytes; a buffer grows when a batch needs more. */
const startBytes = 512 * 1024;
/** Rows are written into the buffer this many characters at a time: one call per row cost more than the rows' encoding. */
const writeChars = 16 * 1024;

/** Batches sent and not yet in the table: one being loaded, the next waiting to follow it at once. */
const maxInFlight = 2;

/**
 * Collects rows and sends them with COPY in batches, while the next batch is collected, so that
 * parsing and loading overlap and memory stays at about three batches. Rows are written as UTF-8
 * into a buffer outside the JavaScript heap every few kilobytes: held as strings until their batch
 * was sent, a batch's rows were alive at every young-generation collection, copied and then
 * promoted, which made collections an upload's largest cost.
 * A batch is sent while the one before it is still loading (the database runs them one after the
 * other, see `loadingDb`): waiting for each to end before sending the next left PostgreSQL idle
 * for the round trip to an upload's thread, 5–10 ms between batches. The buffers take turns: the
 * one being filled, and those whose batches are on their way. A batch holds rows in one of COPY's
 * formats: its options are given with `use` before the rows.
 */
export class CopyBatcher {
  private filling = sharedBuffer(startBytes);
  private readonly free: Buffer<SharedArrayBuffer>[] = [];
  private readonly inFlight: { loaded: Promise<void>; buffer: Buffer<SharedArrayBuffer> }[] = [];
  private bytes = 0;
  private rows = 0;
  private text = '';
  /** COPY's options for the rows being collected: '' for its text format. */
  private options = '';

  constructor(
    private readonly db: LoadingDb,
    private readonly target: string,
  ) {}

  /** Rows that come next are read with these COPY options ('' for the text format): rows collected with others are sent first. */
  async use(options: string): Promise<void> {
    if (options === this.options) return;
    await this.send();
    this.options = options;
  }

  /** A row in COPY text format: its fields (already escaped by copyField) separated by tabs, without the ending newline. */
  addLine(line: string): void {
    this.addText(`${line}\n`, 1);
  }

  /** `rows` whole lines in the format chosen with `use`, each ending in a line break (a file's last line may not). */
  addText(text: string, rows: number): void {
    this.text += text;
    this.rows += rows;
    if (this.text.length >= writeChars) this.writeText();
  }

  private writeText(): void {
    // UTF-8 takes at most three bytes for each UTF-16 code unit.
    const room = this.bytes + this.text.length * 3;
    if (room > this.filling.length) this.filling = grown(this.filling, this.bytes, room);
    this.bytes += this.filling.write(this.text, this.bytes);
    this.text = '';
  }

  /** Sends the collected rows once a batch is full. */
  async sendWhenFull(): Promise<void> {
    if (this.rows >= batchRows || this.bytes >= batchBytes) await this.send();
  }

  /** Waits until every row added so far is in the table. */
  async drain(): Promise<void> {
    await this.send();
    while (this.inFlight.length > 0) await this.oldestLoaded();
  }

  private async send(): Promise<void> {
    if (this.rows === 0) return;
    if (this.inFlight.length === maxInFlight) await this.oldestLoaded();
    this.writeText();
    const loaded = this.db.copyRows(this.target, this.filling.subarray(0, this.bytes), this.options);
    // Awaited by a later send or drain; marked handled so a failure in between is not reported twice.
    loaded.catch(() => undefined);
    this.inFlight.push({ loaded, buffer: this.filling });
    this.filling = this.free.pop() ?? sharedBuffer(startBytes);
    this.bytes = 0;
    this.rows = 0;
  }

  /** Waits for the oldest batch on its way to be in the table: its buffer is free to be filled again. */
  private async oldestLoaded(): Promise<void> {
    const oldest = this.inFlight[0];
    await oldest.loaded;
    this.inFlight.shift();
    this.free.push(oldest.buffer);
  }
}

/**
 * A buffer in shared memory: an ingest thread's batch reaches the main thread (and the embedded
 * database's thread) as it is, without a copy. A new ArrayBuffer for each 4 MiB batch instead made
 * the main thread's V8 collect its old generation every few hundred milliseconds for the external
 * memory (pauses of 10–40 ms that every request waited behind).
 */
const sharedBuffer = (bytes: number): Buffer<SharedArrayBuffer> => Buffer.from(new SharedArrayBuffer(bytes));

/** A larger buffer holding the first `used` bytes of `buffer`. */
function grown(buffer: Buffer<SharedArrayBuffer>, used: number, needed: number): Buffer<SharedArrayBuffer> {
  const larger = sharedBuffer(Math.max(needed, buffer.length * 2));
  buffer.copy(larger, 0, 0, used);
  return larger;
}
