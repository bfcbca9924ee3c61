import Papa from 'papaparse';
import { badFile } from './file-problems.js';
import type { TableRecord } from './table-record.js';

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

function lineOfFirstInvalidByte(decodedSoFar: number, chunk: Buffer): number {
  const lenient = new TextDecoder('utf-8').decode(chunk);
  const bad = lenient.indexOf('\uFFFD');
  const before = lenient.slice(0, Math.max(bad, 0));
  return decodedSoFar + (before.match(/\n/g)?.length ?? 0) + 1;
}

/** UTF-8 text of the bytes (a byte-order mark is dropped); invalid bytes fail naming their line. */
async function* decodeUtf8(source: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 0;
  for await (const chunk of source) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw badFile(`The file is not UTF-8 text: line ${lineOfFirstInvalidByte(lines, chunk)} has bytes that are not UTF-8. Save it as "CSV UTF-8".`);
    }
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
    if (text) yield text;
  }
  try {
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch {
    throw badFile(`The file is not UTF-8 text: it ends in the middle of a character (line ${lines + 1}).`);
  }
}

/** Holds back text until the first line is complete, so the delimiter is chosen from the whole header. */
async function withHeaderLine(text: AsyncGenerator<string>): Promise<{ headerLine: string; all: AsyncGenerator<string> }> {
  let buffered = '';
  let next = await text.next();
  while (!next.done) {
    buffered += next.value;
    if (buffered.includes('\n') || buffered.length > 1_000_000) break;
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

/**
 * The records of a CSV file (comma, semicolon or tab separated, quoted fields, UTF-8 with or
 * without BOM), streamed a chunk at a time. papaparse measured about twice as fast as csv-parse on
 * the same file; its core parser is fed directly, with the unfinished last line carried over to
 * the next chunk, so each chunk's records come as one batch.
 */
export async function* readCsvRecords(source: AsyncIterable<Buffer>): AsyncGenerator<TableRecord[]> {
  const { headerLine, all } = await withHeaderLine(decodeUtf8(source));
  let parser: Papa.Parser | undefined;
  let partial = '';
  let rowNumber = 0;
  const parse = (input: string, last: boolean): TableRecord[] => {
    parser ??= new Papa.Parser({ delimiter: detectDelimiter(headerLine), newline: newlineOf(headerLine, input) });
    const result = parser.parse(input, 0, !last) as { data: string[][]; meta: { cursor: number } };
    partial = last ? '' : input.slice(result.meta.cursor);
    const records: TableRecord[] = [];
    for (const values of result.data) {
      rowNumber += 1;
      if (values.length === 1 && values[0] === '') continue;
      records.push({ values, rowNumber });
    }
    return records;
  };
  for await (const text of all) {
    const records = parse(partial + text, false);
    if (records.length > 0) yield records;
  }
  const rest = parse(partial, true);
  if (rest.length > 0) yield rest;
}
