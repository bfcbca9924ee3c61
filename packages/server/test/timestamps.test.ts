import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../src/db/timestamps.js';

/** A deterministic spread of instants (a linear congruential generator), the same on every run. */
function* instants(count: number, from: number, to: number): Generator<number> {
  let state = 20261129;
  for (let index = 0; index < count; index++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    yield from + Math.floor((state / 2147483648) * (to - from));
  }
}

describe('isoTimestamp', () => {
  it('writes every instant from 1970 to the year 9999 exactly as toISOString does', () => {
    const year10000 = Date.UTC(10000, 0, 1);
    const differing = [...instants(200_000, 0, year10000)].filter((time) => isoTimestamp(new Date(time)) !== new Date(time).toISOString());
    expect(differing.map((time) => new Date(time).toISOString())).toEqual([]);
  });

  it('gets the edges of days, months, leap years and centuries right, one after another', () => {
    const edges = [
      '1970-01-01T00:00:00.000Z',
      '1999-12-31T23:59:59.999Z',
      '2000-02-29T12:00:00.001Z',
      '2000-03-01T00:00:00.000Z',
      '2024-02-29T23:59:59.999Z',
      '2026-11-29T05:42:07.010Z',
      '2026-11-29T05:42:07.100Z',
      '2100-02-28T23:59:59.999Z',
      '2100-03-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ];
    // Each twice in a row and out of order too: the last day's text is kept between calls.
    for (const text of [...edges, ...edges.slice().reverse(), ...edges.flatMap((edge) => [edge, edge])]) {
      expect(isoTimestamp(new Date(text))).toBe(text);
    }
  });

  it('answers toISOString itself before 1970 and from the year 10000 on, and refuses an invalid date the same way', () => {
    for (const text of ['1969-12-31T23:59:59.999Z', '0050-06-01T12:00:00.000Z', '-000001-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z']) {
      expect(isoTimestamp(new Date(text))).toBe(text);
    }
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
