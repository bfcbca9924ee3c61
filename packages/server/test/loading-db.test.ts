import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadingDb } from '../src/db/connect.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';

const rows = (from: number, count: number) => Buffer.from(Array.from({ length: count }, (_, index) => `${from + index}\n`).join(''));

describe.each(databaseKinds())('a loader’s COPYs, sent without waiting, on %s', (kind) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('run one after the other, in the order sent', async () => {
    await database.db.exec('CREATE TABLE loaded_in_order (n bigint)');
    const loading = loadingDb(database.db);
    await Promise.all([loading.copyRows('loaded_in_order (n)', rows(1, 50_000), ''), loading.copyRows('loaded_in_order (n)', rows(50_001, 10), '')]);
    // A table filled by one COPY after the other keeps its rows in the order they came.
    const stored = await database.db.query<{ n: string }>('SELECT n::text FROM loaded_in_order');
    expect(stored.map(({ n }) => Number(n))).toEqual(Array.from({ length: 50_010 }, (_, index) => index + 1));
  });

  it('fail after one that failed, without loading their rows', async () => {
    await database.db.exec('CREATE TABLE loaded_until_failure (n bigint)');
    const loading = loadingDb(database.db);
    const sent = [rows(1, 10), Buffer.from('not a number\n'), rows(11, 10)].map((batch) => loading.copyRows('loaded_until_failure (n)', batch, ''));
    const outcomes = await Promise.allSettled(sent);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBe((outcomes[1] as PromiseRejectedResult).reason);
    const [{ count }] = await database.db.query<{ count: number }>('SELECT count(*)::int AS count FROM loaded_until_failure');
    expect(count).toBe(10);
  });
});
