import { isUtf8 } from 'node:buffer';
import Papa from 'papaparse';
import type { ApiError } from '../platform/errors.js';
import { badFile } from './file-problems.js';
import { occurrences } from './csv-as-copy.js';
import type { CsvLines, CsvText, RecordBatch, TableRecord } from './table-record.js';

const candidates = [',', ';', '\t'] as const;

/** The delimiter that splits the header line most often, counting only outside quotes. */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map<string, number>(candidates.map((c) => [c, 0]));
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best = ',';
  for (const [delimiter, count] of counts) if (count > counts.get(best)!) best = delimiter;
  return best;
}

const countLines = (text: string): number => occurrences(text, '\n');

function lineOfFirstInvalidByte(decodedSoFar: number, chunk: Buffer): number {
  const lenient = new TextDecoder('utf-8').decode(chunk);
  const bad = lenient.indexOf('\uFFFD');
  const before = lenient.slice(0, Math.max(bad, 0));
  return decodedSoFar + countLines(before) + 1;
}

/** How many bytes a UTF-8 sequence starting with `lead` has; 0 for a byte no sequence starts with. */
const sequenceLength = (lead: number): number => (lead < 0x80 ? 1 : lead < 0xc0 ? 0 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf8 ? 4 : 0);

/** The length of `bytes` without a character cut off at its end (its first bytes come with the next chunk). */
function completeLength(bytes: Buffer): number {
  for (let at = bytes.length - 1; at >= Math.max(0, bytes.length - 4); at -= 1) {
    if ((bytes[at] & 0xc0) === 0x80) continue;
    return at + sequenceLength(bytes[at]) > bytes.length ? at : bytes.length;
  }
  return bytes.length;
}

/**
 * UTF-8 text of the bytes (a byte-order mark is dropped); invalid bytes fail naming their line.
 * Checked with `isUtf8` and decoded with `toString`, a character cut between chunks carried to the
 * next: a streaming fatal `TextDecoder` took a tenth of an upload's time (20–25 ms per 10 MiB
 * against 2), and its strings were no cheaper to parse.
 */
async function* decodeUtf8(source: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let carried: Buffer | undefined;
  let lines = 0;
  let first = true;
  for await (const chunk of source) {
    const bytes = carried ? Buffer.concat([carried, chunk]) : chunk;
    const complete = completeLength(bytes);
    const whole = bytes.subarray(0, complete);
    carried = complete < bytes.length ? Buffer.from(bytes.subarray(complete)) : undefined;
    if (!isUtf8(whole)) {
      throw badFile(`The file is not UTF-8 text: line ${lineOfFirstInvalidByte(lines, whole)} has bytes that are not UTF-8. Save it as "CSV UTF-8".`);
    }
    let text = whole.toString('utf8');
    if (first && text) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    lines += countLines(text);
    if (text) yield text;
  }
  if (carried) throw badFile(`The file is not UTF-8 text: it ends in the middle of a character (line ${lines + 1}).`);
}

/** One record (a line, or several when a quoted field holds line breaks) may be at most this long. */
export const maxRecordChars = 1024 * 1024;
/** New text is parsed in batches at least this large, so that tiny network chunks cost no re-parse each. */
const minBatchChars = 64 * 1024;

const recordTooLong = (line: number): ApiError =>
  badFile(
    `Line ${line} is longer than ${maxRecordChars / 1024 / 1024} MiB (${maxRecordChars.toLocaleString('en')} characters) without ending: ` +
      'the file has no line breaks, or a quote there is never closed.',
  );

/** Holds back text until the first line is complete, so the delimiter is chosen from the whole header. */
async function withHeaderLine(text: AsyncGenerator<string>): Promise<{ headerLine: string; all: AsyncGenerator<string> }> {
  let buffered = '';
  let next = await text.next();
  while (!next.done) {
    buffered += next.value;
    if (buffered.includes('\n')) break;
    if (buffered.length > maxRecordChars) throw recordTooLong(1);
    next = await text.next();
  }
  async function* all(): AsyncGenerator<string> {
    if (buffered) yield buffered;
    if (next.done) return;
    for (let more = await text.next(); !more.done; more = await text.next()) yield more.value;
  }
  return { headerLine: buffered.split('\n', 1)[0], all: all() };
}

/** The line ending of the header line: files keep one for every line. */
function newlineOf(headerLine: string, text: string): '\r\n' | '\n' | '\r' {
  if (headerLine.endsWith('\r')) return '\r\n';
  return !text.includes('\n') && text.includes('\r') ? '\r' : '\n';
}

interface PapaResult {
  data: string[][];
  errors: { code: string; index: number }[];
  meta: { cursor: number };
}

/** How far the reader has got in the file: papaparse's parser keeps no state between batches but its options. */
class FileProgress {
  readonly parser: Papa.Parser;
  /** Records (the header's is 1) and line breaks in the batches so far. */
  rowNumber = 0;
  linesDone = 0;

  constructor(
    delimiter: string,
    readonly newline: '\r\n' | '\n' | '\r',
  ) {
    this.parser = new Papa.Parser({ delimiter, newline });
  }
}

/** A batch of the file, cut at a line break: parsed when its records are asked for, its unfinished last record carried on. */
class CsvBatch implements CsvLines {
  private parsed?: TableRecord[];
  private taken = false;
  /** A record that goes on in the next batch, cut off at this batch's end: papaparse stopped before it. */
  private unfinished = '';

  constructor(
    readonly csv: CsvText,
    private readonly last: boolean,
    private readonly file: FileProgress,
  ) {}

  records(): TableRecord[] {
    return (this.parsed ??= this.parse());
  }

  takenAsText(lines: number): void {
    // Parsed already (a sample of the types): the parse has counted its rows.
    if (this.parsed) return;
    this.taken = true;
    this.file.rowNumber += lines;
    this.file.linesDone += lines;
  }

  /** Before the next batch: a batch neither parsed nor taken is parsed now, so that the rows are counted. Answers the text to carry on. */
  settle(): string {
    if (!this.taken) this.records();
    return this.unfinished;
  }

  private parse(): TableRecord[] {
    const { text } = this.csv;
    const { file } = this;
    const result = file.parser.parse(text, 0, !this.last) as PapaResult;
    const unclosed = result.errors.find((error) => error.code === 'MissingQuotes');
    if (unclosed) throw badFile(`Line ${file.linesDone + 1 + countLines(text.slice(0, unclosed.index))} opens a quoted field that is never closed.`);
    const read = this.last ? text : text.slice(0, result.meta.cursor);
    this.unfinished = this.last ? '' : text.slice(result.meta.cursor);
    file.linesDone += countLines(read);
    const records: TableRecord[] = [];
    for (const values of result.data) {
      file.rowNumber += 1;
      // A blank line is no record, nor the empty one after a file's last line break.
      if (values.length !== 1 || values[0] !== '') records.push({ values, rowNumber: file.rowNumber });
    }
    return records;
  }
}

/**
 * The records of a CSV file (comma, semicolon or tab separated, quoted fields, UTF-8 with or
 * without BOM), streamed a chunk at a time, in batches of whole lines (CsvLines): a batch loaded
 * as its text is never parsed. papaparse measured about twice as fast as csv-parse on the same
 * file; its core parser is fed directly, an unfinished record at a batch's end carried over.
 * Linear whatever the line length: new text makes a batch only once it is at least as long as
 * the carried-over text (so each character is re-read a bounded number of times), and a record
 * longer than `maxRecordChars` is refused naming the line where it starts.
 */
export async function* readCsvRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RecordBatch> {
  const { headerLine, all } = await withHeaderLine(decodeUtf8(source));
  const delimiter = detectDelimiter(headerLine);
  let file: FileProgress | undefined;
  /** Text from the start of a record that no batch has had whole. */
  let carried = '';
  let pending = '';
  for await (const text of all) {
    pending += text;
    if (pending.length < Math.max(minBatchChars, carried.length)) continue;
    const input = carried + pending;
    pending = '';
    file ??= new FileProgress(delimiter, newlineOf(headerLine, input));
    const lastBreak = input.lastIndexOf(file.newline);
    carried = input;
    if (lastBreak !== -1) {
      const cut = lastBreak + file.newline.length;
      const batch = new CsvBatch({ text: input.slice(0, cut), delimiter, newline: file.newline }, false, file);
      carried = input.slice(cut);
      yield batch;
      carried = batch.settle() + carried;
    }
    if (carried.length > maxRecordChars) throw recordTooLong(file.linesDone + 1);
  }
  const rest = carried + pending;
  if (rest === '') return;
  file ??= new FileProgress(delimiter, newlineOf(headerLine, rest));
  yield new CsvBatch({ text: rest, delimiter, newline: file.newline }, true, file);
}
