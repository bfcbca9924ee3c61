import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';

/** Rows come back as plain objects whatever their columns are called: project SQL names them. */
describe.each(databaseKinds())('rows of a statement on %s', (kind) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase(kind, { migrated: false });
  });
  afterAll(() => database.drop());

  it('keeps every column name as an own key, a later column of the same name winning, and never a prototype', async () => {
    const [row] = await database.db.query<Record<string, unknown>>(
      `SELECT '{"polluted": true}'::jsonb AS "__proto__", 1 AS "a""b", 2 AS x, 3 AS x, 4 AS "constructor"`,
    );
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(['__proto__', 'a"b', 'x', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toEqual({ polluted: true });
    expect(row).toMatchObject({ 'a"b': 1, x: 3, constructor: 4 });
    expect((row as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("reads every timestamp as the instant it is, whatever the session's time zone", async () => {
    const instants = [
      '2026-11-27T11:43:15.951234Z',
      '2024-02-29T00:00:00.5Z',
      '1999-12-31T23:59:59.000001Z',
      '2026-03-29T01:30:00Z',
      '9999-12-31T23:59:59.999999Z',
      '1000-01-01T00:00:00Z',
      '0050-06-01T12:00:00Z',
    ];
    // Offsets of whole hours, of hours and minutes, west and east, and of seconds (local mean time before 1900).
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'Europe/Amsterdam']) {
      const rows = await database.db.transaction(async (tx) => {
        await tx.query(`SET LOCAL TIME ZONE '${zone}'`);
        return tx.query<{ at: Date | number }>(`SELECT unnest($1::timestamptz[]) AS at`, [[...instants, 'infinity', '-infinity']]);
      });
      expect(rows.map((row) => row.at), zone).toEqual([...instants.map((instant) => new Date(instant)), Infinity, -Infinity]);
    }
  });

  // A long text (a generated list, say) is not kept between runs: both ways are run.
  it.each([
    ['a short statement', 'SELECT $1::int AS n, $2::text AS label'],
    ['a statement of 6,000 characters', `SELECT $1::int AS n, $2::text AS label /* ${'x'.repeat(6000)} */`],
  ])('answers each run of %s with its own values, many at once, in and out of transactions', async (_, sql) => {
    const runs = Array.from({ length: 40 }, (_, n) =>
      n % 2 === 0 ? database.db.query<{ n: number; label: string }>(sql, [n, `run ${n}`]) : database.db.transaction((tx) => tx.query<{ n: number; label: string }>(sql, [n, `run ${n}`])),
    );
    expect(await Promise.all(runs)).toEqual(Array.from({ length: 40 }, (_, n) => [{ n, label: `run ${n}` }]));
    await expect(database.db.query(sql, [1])).rejects.toThrow();
    expect(await database.db.query(sql, [2, 'after a failed run'])).toEqual([{ n: 2, label: 'after a failed run' }]);
  });

  it('gives the same rows inside a transaction', async () => {
    const rows = await database.db.transaction((tx) => tx.query<{ n: number; label: string }>('SELECT n, $1::text AS label FROM generate_series(1, 3) AS n', ['row']));
    expect(rows).toEqual([
      { n: 1, label: 'row' },
      { n: 2, label: 'row' },
      { n: 3, label: 'row' },
    ]);
  });
});
