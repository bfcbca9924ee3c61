export const columnTypes = ['integer', 'numeric', 'boolean', 'date', 'timestamp', 'text'] as const;
export type ColumnType = (typeof columnTypes)[number];

export interface DatasetColumn {
  /** The SQL identifier the column has in the dataset's table. */
  name: string;
  /** The header cell (or source column name) it came from. */
  originalName: string;
  type: ColumnType;
}

export const sqlTypeOf: Record<ColumnType, string> = {
  integer: 'bigint',
  numeric: 'numeric',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamptz',
  text: 'text',
};

const integerPattern = /^[-+]?(0|[1-9]\d{0,18})$/;
const numericPattern = /^[-+]?(0|[1-9]\d*)?(\.\d+)?([eE][-+]?\d{1,3})?$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const timestampPattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const trueWords = new Set(['true', 't', 'yes', 'y', '1']);
const falseWords = new Set(['false', 'f', 'no', 'n', '0']);
const hasDigit = /\d/;
const bigintMax = 9_223_372_036_854_775_807n;

const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The two-digit number at `at`; the caller's pattern has checked that both are digits. */
const twoDigits = (text: string, at: number): number => (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;

/**
 * Whether the YYYY-MM-DD that `text` starts with (already matched by a pattern) is a day of the
 * calendar. Read from fixed positions rather than capture groups: this runs for every date and
 * timestamp of an ingest, and the captures' strings and their conversions were a measured cost.
 */
function validDateAt(text: string): boolean {
  const m = twoDigits(text, 5);
  const d = twoDigits(text, 8);
  if (m < 1 || m > 12 || d < 1) return false;
  if (d <= daysInMonth[m - 1]) return true;
  const y = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  return m === 2 && d === 29 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

type CheckedType = Exclude<ColumnType, 'text'>;

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

function digitsAt(text: string, at: number, count: number): boolean {
  for (let index = at; index < at + count; index += 1) if (!isDigit(text.charCodeAt(index))) return false;
  return true;
}

/**
 * Whether `text` starts with YYYY-MM-DD (digits and dashes only; the calendar is checked apart).
 * Here and in the checks below, lengths are checked before a character is read: a read past the
 * end (a short value, a code or a small number, tried as a date) deoptimized the compiled checks,
 * and a second parse of the bench's 100k rows took about 40 % longer (BENCHMARKS.md, 2026-12-02).
 */
const startsWithDate = (text: string): boolean =>
  text.length >= 10 && digitsAt(text, 0, 4) && text.charCodeAt(4) === 45 && digitsAt(text, 5, 2) && text.charCodeAt(7) === 45 && digitsAt(text, 8, 2);

/** The shortest plain timestamp, `YYYY-MM-DDTHH:MM`. */
const shortestTimestamp = 16;

/**
 * Whether `text` is an optional sign, then digits without a leading zero (or a lone 0) and, with
 * `fraction`, a dot and digits: at most 18 digits without it, so that it fits a bigint.
 */
function isPlainDecimal(text: string, fraction: boolean): boolean {
  const end = text.length;
  const sign = text.charCodeAt(0) === 43 || text.charCodeAt(0) === 45 ? 1 : 0;
  let at = sign;
  while (at < end && isDigit(text.charCodeAt(at))) at += 1;
  const whole = at - sign;
  if (whole > 1 && text.charCodeAt(sign) === 48) return false;
  if (at === end) return whole > 0 && (fraction || whole <= 18);
  if (!fraction || text.charCodeAt(at) !== 46) return false;
  const digits = at + 1;
  for (at = digits; at < end && isDigit(text.charCodeAt(at)); ) at += 1;
  return at === end && at > digits;
}

/** The stored form of a plain timestamp, `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z]`, when valid; else undefined. */
function plainTimestamp(text: string): string | undefined {
  const end = text.length;
  if (end < shortestTimestamp) return undefined;
  const separator = text.charCodeAt(10);
  if (!startsWithDate(text) || (separator !== 84 && separator !== 32) || !digitsAt(text, 11, 2) || text.charCodeAt(13) !== 58 || !digitsAt(text, 14, 2)) return undefined;
  let at = shortestTimestamp;
  const withSeconds = at < end && text.charCodeAt(at) === 58;
  if (withSeconds) {
    if (end < 19 || !digitsAt(text, 17, 2)) return undefined;
    at = 19;
    if (at < end && text.charCodeAt(at) === 46) {
      const digits = at + 1;
      for (at = digits; at < end && isDigit(text.charCodeAt(at)); ) at += 1;
      if (at === digits || at - digits > 9) return undefined;
    }
  }
  const zoned = at === end - 1 && text.charCodeAt(at) === 90;
  if (!zoned && at !== end) return undefined;
  if (!validDateAt(text) || twoDigits(text, 11) > 23 || twoDigits(text, 14) > 59 || (withSeconds && twoDigits(text, 17) > 59)) return undefined;
  return zoned ? text : `${text}Z`;
}

/**
 * The stored value of `raw` when it has its type's most common shape (no spaces, no exponent,
 * no zone offset, lower-case true or false) and fits; undefined leaves the decision to
 * `checkedValue`, whose patterns accept all these shapes and more. Every value of an ingest is
 * checked: reading characters was measured cheaper than the patterns, the trim and the lower-casing.
 */
function plainValue(raw: string, type: CheckedType): string | undefined {
  switch (type) {
    case 'integer':
      return isPlainDecimal(raw, false) ? raw : undefined;
    case 'numeric':
      return isPlainDecimal(raw, true) ? raw : undefined;
    case 'boolean':
      return raw === 'true' || raw === 'false' ? raw : undefined;
    case 'date':
      return raw.length === 10 && startsWithDate(raw) && validDateAt(raw) ? raw : undefined;
    case 'timestamp':
      return plainTimestamp(raw);
  }
}

/**
 * The value as PostgreSQL reads it for a column of `type`, or undefined when it does not fit.
 * Leading zeros ("00501") do not make a number: such columns are codes and stay text.
 */
export function storedValue(raw: string, type: ColumnType): string | undefined {
  if (type === 'text') return raw;
  return plainValue(raw, type) ?? checkedValue(raw.trim(), type);
}

function checkedValue(value: string, type: CheckedType): string | undefined {
  switch (type) {
    case 'integer': {
      if (!integerPattern.test(value)) return undefined;
      if (value.length >= 19) {
        const big = BigInt(value);
        if (big > bigintMax || big < -bigintMax - 1n) return undefined;
      }
      return value;
    }
    case 'numeric':
      return numericPattern.test(value) && hasDigit.test(value) ? value : undefined;
    case 'boolean': {
      const word = value.toLowerCase();
      if (trueWords.has(word)) return 'true';
      return falseWords.has(word) ? 'false' : undefined;
    }
    case 'date':
      return datePattern.test(value) && validDateAt(value) ? value : undefined;
    case 'timestamp': {
      const match = timestampPattern.exec(value);
      if (!match) return datePattern.test(value) && validDateAt(value) ? `${value}T00:00:00Z` : undefined;
      if (!validDateAt(value)) return undefined;
      // Hours and minutes sit at fixed places after YYYY-MM-DD and T; seconds, when given, after the next colon.
      if (twoDigits(value, 11) > 23 || twoDigits(value, 14) > 59 || (match[6] !== undefined && twoDigits(value, 17) > 59)) return undefined;
      // A time without a zone is read as UTC, whatever the server's TimeZone is.
      return match[8] ? value : `${value}Z`;
    }
  }
}

/** Narrowest first: every integer is numeric and every date a timestamp, so the first that fits all wins. */
const inferenceOrder: ColumnType[] = ['integer', 'numeric', 'boolean', 'date', 'timestamp'];

/** The narrowest type every non-empty sample value fits; text when there is none. */
export function inferType(samples: Iterable<string>): ColumnType {
  let candidates = inferenceOrder;
  let seen = false;
  for (const value of samples) {
    if (value === '') continue;
    seen = true;
    candidates = candidates.filter((type) => storedValue(value, type) !== undefined);
    if (candidates.length === 0) return 'text';
  }
  if (!seen) return 'text';
  // 0/1 only is a number column; booleans are inferred from words.
  return candidates[0];
}

const wider: Record<ColumnType, ColumnType[]> = {
  integer: ['numeric', 'text'],
  numeric: ['text'],
  boolean: ['text'],
  date: ['timestamp', 'text'],
  timestamp: ['text'],
  text: [],
};

/** The next wider type that holds `value` as well as everything `type` held. */
export function widenFor(type: ColumnType, value: string): ColumnType {
  return wider[type].find((next) => storedValue(value, next) !== undefined) ?? 'text';
}

/** SQL that converts a column already stored as `from` into `to` (ALTER … USING). */
export function conversionSql(column: string, from: ColumnType, to: ColumnType): string {
  if (to !== 'text') return from === 'date' ? `(${column}::timestamp AT TIME ZONE 'UTC')` : `${column}::${sqlTypeOf[to]}`;
  return textOf(column, from);
}

/** The column's value as the text a user would read back (dates ISO, timestamps in UTC). */
export function textOf(column: string, type: ColumnType): string {
  switch (type) {
    case 'date':
      return `to_char(${column}, 'YYYY-MM-DD')`;
    case 'timestamp':
      return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    default:
      return `${column}::text`;
  }
}

/**
 * How a stored value is selected for JSON output: numbers as numbers, times as ISO text. Integers
 * come as text so that those beyond 2^53 keep every digit (see `outputValue`).
 */
export function outputSql(column: string, type: ColumnType): string {
  switch (type) {
    case 'integer':
      return `${column}::text`;
    case 'numeric':
      return `${column}::float8`;
    case 'date':
    case 'timestamp':
      return textOf(column, type);
    default:
      return column;
  }
}

/** An integer as a JSON number when it is exact as one, else as its digits. */
export function outputInteger(text: string | null): number | string | null {
  if (text === null) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}
