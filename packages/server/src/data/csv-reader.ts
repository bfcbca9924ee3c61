import { isUtf8 } from 'node:buffer';
import Papa from 'papaparse';
import type { ApiError } from '../platform/errors.js';
import { badFile } from './file-problems.js';
import { copyReadsAsParsed, occurrences } from './csv-as-copy.js';
import type { RecordBatch } from './table-record.js';

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

/**
 * The records of a CSV file (comma, semicolon or tab separated, quoted fields, UTF-8 with or
 * without BOM), streamed a chunk at a time. papaparse measured about twice as fast as csv-parse on
 * the same file; its core parser is fed directly, with the unfinished last record carried over.
 * Linear whatever the line length: new text is parsed only once it is at least as long as the
 * carried-over record (so each character is re-read a bounded number of times), and a record
 * longer than `maxRecordChars` is refused naming the line where it starts. A batch carries the
 * text it was read from when PostgreSQL's CSV COPY reads that text into the same records.
 */
export async function* readCsvRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RecordBatch> {
  const { headerLine, all } = await withHeaderLine(decodeUtf8(source));
  const delimiter = detectDelimiter(headerLine);
  let parser: Papa.Parser | undefined;
  let newline: ReturnType<typeof newlineOf> = '\n';
  let partial = '';
  let rowNumber = 0;
  let linesDone = 0;
  const parse = (input: string, last: boolean): RecordBatch => {
    if (parser === undefined) {
      newline = newlineOf(headerLine, input);
      parser = new Papa.Parser({ delimiter, newline });
    }
    const result = parser.parse(input, 0, !last) as PapaResult;
    const unclosed = result.errors.find((error) => error.code === 'MissingQuotes');
    if (unclosed) throw badFile(`Line ${linesDone + 1 + countLines(input.slice(0, unclosed.index))} opens a quoted field that is never closed.`);
    const read = last ? input : input.slice(0, result.meta.cursor);
    partial = last ? '' : input.slice(result.meta.cursor);
    linesDone += last ? 0 : countLines(read);
    if (partial.length > maxRecordChars) throw recordTooLong(linesDone + 1);
    const records: RecordBatch = [];
    // The empty record after a file's last line break is no line, for papaparse's reading as for COPY's.
    const lastLine = last && read.endsWith(newline) ? result.data.length - 1 : result.data.length;
    let blankLines = 0;
    for (let index = 0; index < result.data.length; index += 1) {
      const values = result.data[index];
      rowNumber += 1;
      if (values.length === 1 && values[0] === '') blankLines += index < lastLine ? 1 : 0;
      else records.push({ values, rowNumber });
    }
    if (blankLines === 0 && result.errors.length === 0 && copyReadsAsParsed(read, delimiter, newline, records.length)) records.csv = { text: read, delimiter, newline };
    return records;
  };
  let pending = '';
  for await (const text of all) {
    pending += text;
    if (pending.length < Math.max(minBatchChars, partial.length)) continue;
    const records = parse(partial + pending, false);
    pending = '';
    if (records.length > 0) yield records;
  }
  const rest = parse(partial + pending, true);
  if (rest.length > 0) yield rest;
}
