import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { connectDb, type Db } from '../src/db/connect.js';
import { namedStatement } from '../src/db/named-statement.js';
import { DatabaseUnavailable } from '../src/db/unavailable.js';
import type { EmbeddedDb } from '../src/db/embedded.js';
import { pgliteImage } from './support/pglite-images.js';
import { tempDataDir } from './support/processes.js';

/**
 * PGlite has one session, shared by the pool's connections in its thread: a transaction must keep
 * it to itself until it ends, whatever the other connections send meanwhile.
 */
describe("the embedded database's one session, shared by a pool of connections", () => {
  let db: Db;
  let tables = 0;
  /** Each test's own table, so that none reads another's rows. */
  let entries: string;

  beforeAll(async () => {
    db = await connectDb({ poolSize: 10, image: await pgliteImage('empty') });
  });
  afterAll(() => db.close());
  beforeEach(async () => {
    entries = `entries_${++tables}`;
    await db.exec(`CREATE TABLE ${entries} (n integer PRIMARY KEY, source text NOT NULL)`);
  });

  it("keeps other connections' statements out of a transaction that rolls back", async () => {
    let inside!: () => void;
    const begun = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO ${entries} VALUES (0, 'rolled back')`);
        inside();
        await released;
        // Long enough for the statements sent meanwhile to reach the database's thread behind it.
        await tx.query('SELECT pg_sleep(0.5)');
        throw new Error('changed its mind');
      })
      .catch((error: unknown) => error);
    await begun;
    // Sent while the transaction is open: they wait for it instead of running inside it.
    const outside = Array.from({ length: 20 }, (_, index) => db.query(`INSERT INTO ${entries} VALUES ($1, 'outside')`, [index + 1]));
    release();
    expect(await rolledBack).toMatchObject({ message: 'changed its mind' });
    await Promise.all(outside);
    expect(await db.query(`SELECT source, count(*)::int AS n FROM ${entries} GROUP BY source`)).toEqual([{ source: 'outside', n: 20 }]);
  });

  it('serializes concurrent read-modify-write transactions as one session would', async () => {
    await db.exec(`INSERT INTO ${entries} VALUES (0, 'counter')`);
    await Promise.all(
      Array.from({ length: 30 }, () =>
        db.transaction(async (tx) => {
          const [{ value }] = await tx.query<{ value: number }>(`SELECT n AS value FROM ${entries}`);
          await new Promise((resolve) => setImmediate(resolve));
          await tx.query(`UPDATE ${entries} SET n = $1`, [value + 1]);
        }),
      ),
    );
    expect(await db.query(`SELECT n AS value FROM ${entries}`)).toEqual([{ value: 30 }]);
  });

  it('rolls back the open transaction of a connection that is destroyed, and serves the others', async () => {
    let inside!: () => void;
    const begun = new Promise<void>((resolve) => (inside = resolve));
    // A transaction failing with DatabaseUnavailable sends no ROLLBACK: its connection is destroyed.
    const abandoned = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO ${entries} VALUES (1, 'abandoned')`);
        inside();
        await new Promise((resolve) => setImmediate(resolve));
        throw new DatabaseUnavailable(new Error('lost while inside the transaction'));
      })
      .catch((error: unknown) => error);
    await begun;
    const waiting = db.query(`INSERT INTO ${entries} VALUES (2, 'after')`);
    expect(await abandoned).toBeInstanceOf(DatabaseUnavailable);
    await waiting;
    expect(await db.query(`SELECT n, source FROM ${entries} ORDER BY n`)).toEqual([{ n: 2, source: 'after' }]);
  });

  it("carries every NOTIFY to the listener, whichever connection's transaction sent it", async () => {
    const heard: string[] = [];
    const unlisten = await db.listen(entries, (payload) => heard.push(payload));
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${entries} VALUES ($1, 'notified')`, [index]);
          await tx.query('SELECT pg_notify($1, $2)', [entries, String(index)]);
        }),
      ),
    );
    await db.query("SELECT pg_notify('other', 'not for this listener')");
    await unlisten();
    expect(heard.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  /**
   * The thread keeps each statement with parameters prepared and runs its repeats from it
   * (db/embedded-statements.ts): what a client reads must not change because of it.
   */
  describe('with statements kept prepared', () => {
    beforeEach(() => db.exec(`INSERT INTO ${entries} VALUES (1, 'first'), (2, 'second')`));

    const preparedCopies = async (text: string) =>
      (await db.query<{ copies: number }>('SELECT count(*)::int AS copies FROM pg_prepared_statements WHERE statement = $1', [text]))[0]!.copies;

    it('prepares a repeated statement once for every connection, and answers each repeat with its own values', async () => {
      const text = `SELECT source FROM ${entries} WHERE n = $1`;
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => db.query<{ source: string }>(text, [(index % 2) + 1])));
      expect(answers.map((rows) => rows[0]!.source)).toEqual(Array.from({ length: 30 }, (_, index) => (index % 2 === 0 ? 'first' : 'second')));
      expect(await preparedCopies(text)).toBe(1);
    });

    it('runs a statement its client prepared under a name of its own, and keeps serving', async () => {
      const named = namedStatement(`SELECT source FROM ${entries} WHERE n = $1`);
      // The embedded database sends a NamedStatement unnamed; a client of its socket may name one itself.
      const pool = (db as unknown as { pool: pg.Pool }).pool;
      const client = await pool.connect();
      try {
        for (const n of [1, 2, 1]) {
          const result = await client.query({ name: named.name, text: named.text, values: [n] });
          expect(result.rows).toEqual([{ source: n === 1 ? 'first' : 'second' }]);
        }
      } finally {
        client.release();
      }
      expect(await db.query(named, [2])).toEqual([{ source: 'second' }]);
    });

    it('answers with the new columns after the table changed, outside a transaction and inside one', async () => {
      const text = `SELECT * FROM ${entries} WHERE n = $1`;
      expect(await db.query(text, [1])).toEqual([{ n: 1, source: 'first' }]);
      await db.exec(`ALTER TABLE ${entries} ADD COLUMN weight integer DEFAULT 7`);
      expect(await db.query(text, [1])).toEqual([{ n: 1, source: 'first', weight: 7 }]);
      const inside = await db.transaction(async (tx) => {
        await tx.query(`ALTER TABLE ${entries} DROP COLUMN source`);
        return tx.query(text, [2]);
      });
      expect(inside).toEqual([{ n: 2, weight: 7 }]);
    });

    it('answers with the columns a rolled-back change left', async () => {
      const text = `SELECT * FROM ${entries} WHERE n = $1`;
      const rolledBack = db
        .transaction(async (tx) => {
          await tx.query(`ALTER TABLE ${entries} ADD COLUMN weight integer DEFAULT 7`);
          expect(await tx.query(text, [1])).toEqual([{ n: 1, source: 'first', weight: 7 }]);
          throw new Error('changed its mind');
        })
        .catch((error: unknown) => error);
      expect(await rolledBack).toMatchObject({ message: 'changed its mind' });
      expect(await db.query(text, [1])).toEqual([{ n: 1, source: 'first' }]);
    });

    it('answers a table dropped and made again under the same name with its new columns', async () => {
      const text = `SELECT * FROM ${entries} WHERE n > $1 ORDER BY n`;
      expect(await db.query(text, [1])).toEqual([{ n: 2, source: 'second' }]);
      await db.exec(`DROP TABLE ${entries}; CREATE TABLE ${entries} (n integer, label text, at date); INSERT INTO ${entries} VALUES (5, 'five', '2026-11-27')`);
      expect(await db.query(text, [1])).toEqual([{ n: 5, label: 'five', at: new Date('2026-11-27T00:00:00Z') }]);
    });

    it('answers a bad value for a prepared statement with its error, and the next good one with rows', async () => {
      const text = `SELECT source FROM ${entries} WHERE n = $1`;
      expect(await db.query(text, [1])).toEqual([{ source: 'first' }]);
      await expect(db.query(text, ['one'])).rejects.toMatchObject({ code: '22P02', message: expect.stringContaining('invalid input syntax for type integer') });
      await expect(db.transaction((tx) => tx.query(text, ['two']))).rejects.toMatchObject({ code: '22P02' });
      expect(await db.query(text, [2])).toEqual([{ source: 'second' }]);
    });

    it('keeps at most 200 statements prepared, closing the least recently used', async () => {
      for (let index = 0; index < 260; index++) await db.query(`SELECT n + ${index} AS shifted FROM ${entries} WHERE n = $1`, [1]);
      // Without parameters, so not prepared itself: it counts only the kept statements.
      const [{ kept }] = await db.query<{ kept: number }>("SELECT count(*)::int AS kept FROM pg_prepared_statements WHERE name LIKE 'vigil_embedded_%'");
      expect(kept).toBe(200);
      expect(await preparedCopies(`SELECT n + 259 AS shifted FROM ${entries} WHERE n = $1`)).toBe(1);
      expect(await preparedCopies(`SELECT n + 0 AS shifted FROM ${entries} WHERE n = $1`)).toBe(0);
    });

    it("leaves a transaction's statements unprepared once it lowered its own limit, as the project's SQL does", async () => {
      const text = `SELECT source FROM ${entries} WHERE n = $1 AND source <> 'project'`;
      const rows = await db.transaction(async (tx) => {
        await tx.query('SET LOCAL statement_timeout = 2000');
        return tx.query(text, [2]);
      });
      expect(rows).toEqual([{ source: 'second' }]);
      expect(await preparedCopies(text)).toBe(0);
    });
  });
});

describe('connections of the embedded database across a stopped statement', () => {
  it('keeps idle connections through the reopen, fails those with work in the stopped thread, and loses no committed row', async () => {
    const data = await tempDataDir({ migrated: true });
    const db = await connectDb({ dataDir: data.dir, statementTimeoutMs: 1_000, poolSize: 4 });
    try {
      await db.exec('CREATE TABLE kept (n integer PRIMARY KEY)');
      // Four connections open and idle in the pool.
      await Promise.all([1, 2, 3, 4].map((n) => db.transaction((tx) => tx.query('INSERT INTO kept VALUES ($1)', [n]))));
      const stopped = db.query('SELECT count(*) FROM generate_series(1, 10000000000)').catch((error: unknown) => error);
      expect(await stopped).toBeInstanceOf(DatabaseUnavailable);
      // The next statements take the pool's surviving connections and wait for the reopened database.
      const after = await Promise.all([5, 6, 7].map((n) => db.query<{ n: number }>('INSERT INTO kept VALUES ($1) RETURNING n', [n])));
      expect(after.flat()).toEqual([{ n: 5 }, { n: 6 }, { n: 7 }]);
      expect(await db.query('SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 7 }]);
    } finally {
      await db.close();
      await data.remove();
    }
  });
});

describe('an image of the embedded database', () => {
  it('starts another in-memory database as a copy: the same rows, and changes to one stay out of the other', async () => {
    const original = await connectDb({ image: await pgliteImage('empty') });
    try {
      await original.exec("CREATE TABLE kept (n integer PRIMARY KEY, note text); INSERT INTO kept VALUES (1, 'before the image')");
      const image = await (original as EmbeddedDb).image();
      const copy = await connectDb({ image });
      try {
        expect(await copy.query('SELECT n, note FROM kept')).toEqual([{ n: 1, note: 'before the image' }]);
        await copy.query("INSERT INTO kept VALUES (2, 'in the copy')");
        await original.query("INSERT INTO kept VALUES (3, 'in the original')");
        expect(await copy.query('SELECT n FROM kept ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
        expect(await original.query('SELECT n FROM kept ORDER BY n')).toEqual([{ n: 1 }, { n: 3 }]);
      } finally {
        await copy.close();
      }
    } finally {
      await original.close();
    }
  });
});
