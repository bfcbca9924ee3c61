import { describe, expect, it } from 'vitest';
import { inferType, storedValue, widenFor } from '../src/data/column-types.js';
import { copyField } from '../src/data/copy-batcher.js';
import { detectDelimiter } from '../src/data/csv-reader.js';
import { csvCell } from '../src/data/export-writers.js';
import { columnIdentifiers, tableIdentifier } from '../src/data/identifiers.js';

describe('column types', () => {
  it('infers the narrowest type that every sampled value fits', () => {
    expect(inferType(['1', '-2', '', '+3'])).toBe('integer');
    expect(inferType(['1', '2.5', '1e3'])).toBe('numeric');
    expect(inferType(['0', '1'])).toBe('integer');
    expect(inferType(['Yes', 'no', 'TRUE'])).toBe('boolean');
    expect(inferType(['2026-01-02', '2024-02-29'])).toBe('date');
    expect(inferType(['2026-01-02', '2026-01-02T03:04:05+01:00'])).toBe('timestamp');
    expect(inferType(['00501', '10001'])).toBe('text');
    expect(inferType(['2023-02-29'])).toBe('text');
    expect(inferType(['', ''])).toBe('text');
    expect(inferType(['9223372036854775808'])).toBe('numeric');
  });

  it('stores values in the form PostgreSQL reads, times without a zone as UTC', () => {
    expect(storedValue(' 42 ', 'integer')).toBe('42');
    expect(storedValue('Y', 'boolean')).toBe('true');
    expect(storedValue('2026-01-02 03:04:05', 'timestamp')).toBe('2026-01-02 03:04:05Z');
    expect(storedValue('2026-01-02', 'timestamp')).toBe('2026-01-02T00:00:00Z');
    expect(storedValue('2026-01-02 25:00', 'timestamp')).toBeUndefined();
    expect(storedValue(' padded ', 'text')).toBe(' padded ');
  });

  it('accepts only days of the calendar and times of the clock', () => {
    expect(storedValue('2000-02-29', 'date')).toBe('2000-02-29');
    expect(storedValue('1900-02-29', 'date')).toBeUndefined();
    expect(storedValue('2026-04-31', 'date')).toBeUndefined();
    expect(storedValue('2026-13-01', 'date')).toBeUndefined();
    expect(storedValue('2026-00-10', 'date')).toBeUndefined();
    expect(storedValue('2026-01-00', 'date')).toBeUndefined();
    expect(storedValue(' 2026-12-31 ', 'date')).toBe('2026-12-31');
    expect(storedValue('2024-02-29T23:59:59.5+02:00', 'timestamp')).toBe('2024-02-29T23:59:59.5+02:00');
    expect(storedValue('2023-02-29T10:00:00Z', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-01-02T24:00', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-01-02T10:60', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-01-02T10:00:60', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-01-02t10:00:59z', 'timestamp')).toBe('2026-01-02t10:00:59z');
    expect(storedValue('1900-02-29', 'timestamp')).toBeUndefined();
  });

  it('reads the common shapes by their characters with the same outcome as the patterns', () => {
    expect(storedValue('123456789012345678', 'integer')).toBe('123456789012345678');
    expect(storedValue('9223372036854775807', 'integer')).toBe('9223372036854775807');
    expect(storedValue('9223372036854775808', 'integer')).toBeUndefined();
    expect(storedValue('-0', 'integer')).toBe('-0');
    expect(storedValue('007', 'integer')).toBeUndefined();
    expect(storedValue('+.5', 'numeric')).toBe('+.5');
    expect(storedValue('1.', 'numeric')).toBeUndefined();
    expect(storedValue('01.5', 'numeric')).toBeUndefined();
    expect(storedValue('1.5e3', 'numeric')).toBe('1.5e3');
    expect(storedValue('false', 'boolean')).toBe('false');
    expect(storedValue('2026-03-01T10:15:00.123456789Z', 'timestamp')).toBe('2026-03-01T10:15:00.123456789Z');
    expect(storedValue('2026-03-01T10:15:00.1234567890Z', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-03-01T10:15:00.', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-03-01T10:15.5', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-03-01 10:15', 'timestamp')).toBe('2026-03-01 10:15Z');
    expect(storedValue('2026-03-01 10:15 Z', 'timestamp')).toBe('2026-03-01 10:15 Z');
  });

  it('treats short values, and values cut off part-way through a shape, as the patterns do', () => {
    for (const short of ['5', '-', '+', '-7', '0', 'north']) expect(storedValue(short, 'timestamp')).toBeUndefined();
    expect(['5', '-', '+', '', '.'].map((value) => storedValue(value, 'integer'))).toEqual(['5', undefined, undefined, undefined, undefined]);
    expect(['5', '.5', '5.', '-.5'].map((value) => storedValue(value, 'numeric'))).toEqual(['5', '.5', undefined, '-.5']);
    expect(storedValue('2026-03-0', 'date')).toBeUndefined();
    expect(storedValue('2026-03-01T10:1', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-03-01T10:15', 'timestamp')).toBe('2026-03-01T10:15Z');
    expect(storedValue('2026-03-01T10:15Z', 'timestamp')).toBe('2026-03-01T10:15Z');
    expect(storedValue('2026-03-01T10:15:', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-03-01T10:15:3', 'timestamp')).toBeUndefined();
    expect(storedValue('2026-03-01T10:15:30', 'timestamp')).toBe('2026-03-01T10:15:30Z');
    expect(inferType(['5', '12', 'north'])).toBe('text');
    expect(inferType(['5', '12', '7'])).toBe('integer');
  });

  it('widens along integer → numeric → text and date → timestamp → text', () => {
    expect(widenFor('integer', '2.5')).toBe('numeric');
    expect(widenFor('integer', 'n/a')).toBe('text');
    expect(widenFor('date', '2026-01-02T10:00:00Z')).toBe('timestamp');
    expect(widenFor('boolean', 'maybe')).toBe('text');
  });
});

describe('names and cells', () => {
  it('turns headers into unique SQL identifiers and keeps clear of reserved words', () => {
    expect(columnIdentifiers(['Order ID', 'Crème brûlée', '2024', 'order', '', 'Order-ID', '__x__'])).toEqual([
      'order_id',
      'creme_brulee',
      'column_2024',
      'order_',
      'column_5',
      'order_id_2',
      'x',
    ]);
    expect(tableIdentifier('Sales 2026.csv')).toBe('sales_2026');
    expect(tableIdentifier('***.xlsx')).toBe('dataset');
  });

  it('detects the delimiter from the header line, outside quotes', () => {
    expect(detectDelimiter('a,b,c')).toBe(',');
    expect(detectDelimiter('a;b;"c,d"')).toBe(';');
    expect(detectDelimiter('a\tb\tc')).toBe('\t');
  });

  it('escapes COPY fields and CSV cells, and defuses formula-looking text', () => {
    expect(copyField('a\tb\\c\nd\0')).toBe('a\\tb\\\\c\\nd');
    expect(copyField(null)).toBe('\\N');
    expect(csvCell('=SUM(A1)', 'text')).toBe("'=SUM(A1)");
    expect(csvCell('@x', 'text')).toBe("'@x");
    expect(csvCell(-5, 'numeric')).toBe('-5');
    expect(csvCell('say "hi", ok', 'text')).toBe('"say ""hi"", ok"');
    expect(csvCell(null, 'text')).toBe('');
  });
});
