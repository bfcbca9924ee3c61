import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedStatement } from '../src/db/named-statement.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';

/**
 * A NamedStatement is prepared once per PostgreSQL connection under its name; the embedded
 * database, whose connections share one session, gets it unnamed (its thread prepares statements
 * itself), so that two connections never prepare the same name in that one session.
 */
describe.each(databaseKinds())('named statements on %s', (kind) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase(kind, { migrated: false });
    await database.db.exec('CREATE TABLE entries (n integer PRIMARY KEY, source text NOT NULL)');
    await database.db.exec(`INSERT INTO entries VALUES (1, 'first'), (2, 'second')`);
  });
  afterAll(() => database?.drop());

  const bySource = namedStatement('SELECT source FROM entries WHERE n = $1');

  it('answers each run with its own values, from every connection of the pool at once', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, index) => database.db.query<{ source: string }>(bySource, [(index % 2) + 1])));
    expect(answers.map((rows) => rows[0]?.source)).toEqual(Array.from({ length: 24 }, (_, index) => (index % 2 === 0 ? 'first' : 'second')));
  });

  it(kind === 'postgres' ? 'is prepared under its name on the connection' : 'is not prepared under its name', async () => {
    const prepared = await database.db.transaction(async (tx) => {
      expect(await tx.query(bySource, [2])).toEqual([{ source: 'second' }]);
      return tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE name = $1', [bySource.name]);
    });
    expect(prepared).toEqual(kind === 'postgres' ? [{ statement: bySource.text }] : []);
  });

  it('gives one text one name, and two texts two', () => {
    expect(namedStatement(bySource.text)).toEqual(bySource);
    expect(namedStatement('SELECT n FROM entries WHERE n = $1').name).not.toBe(bySource.name);
  });
});
