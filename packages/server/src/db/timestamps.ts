import pg from 'pg';

/** PostgreSQL's type id of timestamptz. */
export const timestamptz = 1184;
const parseAnyTimestamptz = pg.types.getTypeParser(timestamptz, 'text') as (text: string) => Date | number | null;

const zero = 0x30;
const dash = 0x2d;
const plus = 0x2b;
const space = 0x20;
const colon = 0x3a;
const dot = 0x2e;

/** The number written by the digits of `text` from `from` to `to`, or NaN if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let at = from; at < to; at++) {
    const digit = text.charCodeAt(at) - zero;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A `timestamptz` as PostgreSQL writes it (DateStyle ISO): `2026-11-27 11:43:15.951234+00`, its
 * offset `±HH` or `±HH:MM`. pg's own parser (postgres-date) runs three regular expressions on every
 * value: 550 ns against 180 here. An alert carries five timestamps, and under `npm run bench -- rest`
 * they took 4 % of the API thread. Anything else (infinity, BC, years before 1000 or after 9999, an
 * offset with seconds) goes to pg's parser. Hand-written because it is pg's parser made narrower.
 */
export function parseTimestamptz(text: string): Date | number | null {
  const length = text.length;
  if (length < 22 || text.charCodeAt(4) !== dash || text.charCodeAt(7) !== dash || text.charCodeAt(10) !== space || text.charCodeAt(13) !== colon || text.charCodeAt(16) !== colon) {
    return parseAnyTimestamptz(text);
  }
  let at = 19;
  let milliseconds = 0;
  if (text.charCodeAt(at) === dot) {
    const fractionAt = ++at;
    while (at < length && text.charCodeAt(at) >= zero && text.charCodeAt(at) <= zero + 9) at++;
    const millisecondDigits = Math.min(at - fractionAt, 3);
    milliseconds = digits(text, fractionAt, fractionAt + millisecondDigits) * 10 ** (3 - millisecondDigits);
  }
  const sign = text.charCodeAt(at);
  const hasMinutes = length === at + 6 && text.charCodeAt(at + 3) === colon;
  if ((sign !== plus && sign !== dash) || (length !== at + 3 && !hasMinutes)) return parseAnyTimestamptz(text);
  const year = digits(text, 0, 4);
  const offsetMinutes = digits(text, at + 1, at + 3) * 60 + (hasMinutes ? digits(text, at + 4, at + 6) : 0);
  const local = Date.UTC(year, digits(text, 5, 7) - 1, digits(text, 8, 10), digits(text, 11, 13), digits(text, 14, 16), digits(text, 17, 19), milliseconds);
  if (Number.isNaN(local) || year < 1000) return parseAnyTimestamptz(text);
  return new Date(local - (sign === plus ? 1 : -1) * offsetMinutes * 60_000);
}

const millisecondsPerDay = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on `toISOString` writes a signed six-digit year. */
const yearTenThousand = 253_402_300_800_000;
const twoDigits = (value: number) => (value < 10 ? `0${value}` : `${value}`);
const threeDigits = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`);

/**
 * The text of `date.toISOString()`, written from the day number instead of through V8's general
 * date printer: 125–155 ns against 560–940 (BENCHMARKS.md, 2026-11-29 morning). A page of 20
 * alerts writes 60 to 100 timestamps, every webhook payload and event one more. The calendar
 * arithmetic is Howard Hinnant's `civil_from_days`, hand-written: twenty lines are not worth a
 * dependency. Instants before 1970 or from the year 10000 on, and invalid dates (which throw), go
 * to `toISOString`.
 */
export function isoTimestamp(date: Date): string {
  const time = date.getTime();
  if (!(time >= 0 && time < yearTenThousand)) return date.toISOString();
  const days = Math.floor(time / millisecondsPerDay);
  let rest = time - days * millisecondsPerDay;
  const hours = (rest / 3_600_000) | 0;
  rest -= hours * 3_600_000;
  const minutes = (rest / 60_000) | 0;
  rest -= minutes * 60_000;
  const seconds = (rest / 1000) | 0;
  return `${dayPrefix(days)}${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${threeDigits(rest - seconds * 1000)}Z`;
}

export const isoOrNull = (value: Date | null): string | null => (value ? isoTimestamp(value) : null);

let lastDay = -1;
let lastDayPrefix = '';

/** `YYYY-MM-DDT` of a day since 1970-01-01; the last one is kept, as a page's timestamps mostly share their day. */
function dayPrefix(days: number): string {
  if (days === lastDay) return lastDayPrefix;
  const shifted = days + 719_468;
  const era = (shifted / 146_097) | 0;
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = ((dayOfEra - ((dayOfEra / 1460) | 0) + ((dayOfEra / 36_524) | 0) - ((dayOfEra / 146_096) | 0)) / 365) | 0;
  const dayOfYear = dayOfEra - (365 * yearOfEra + ((yearOfEra / 4) | 0) - ((yearOfEra / 100) | 0));
  const monthFromMarch = ((5 * dayOfYear + 2) / 153) | 0;
  const day = dayOfYear - (((153 * monthFromMarch + 2) / 5) | 0) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  lastDay = days;
  lastDayPrefix = `${year}-${twoDigits(month)}-${twoDigits(day)}T`;
  return lastDayPrefix;
}
