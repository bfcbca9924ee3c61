import { describe, expect, it } from 'vitest';
import { copyEmbeddedToPostgres } from '../src/admin/migrate-to-postgres.js';
import { connectDb } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { scratchDatabase } from './support/databases.js';
import { needs } from './support/requirements.js';

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('copying an embedded database into PostgreSQL', () => {
  it('moves a table many pieces long, row for row, and the empty tables too', async () => {
    const database = await scratchDatabase('vigil_pieces');
    const source = await connectDb({});
    const target = await connectDb({ databaseUrl: database.url, poolSize: 1 });
    try {
      await migrate(source);
      await source.exec(`CREATE SCHEMA data_pieces;
        CREATE TABLE data_pieces.readings (id bigint PRIMARY KEY, note text, at timestamptz);
        INSERT INTO data_pieces.readings
          SELECT n, repeat(md5(n::text), 4) || E'\\ttab\\nline', timestamptz '2026-01-01' + n * interval '1 minute'
          FROM generate_series(1, 3000) AS n;`);
      const [{ pages }] = await source.query<{ pages: number }>(
        `SELECT (pg_relation_size('data_pieces.readings') / current_setting('block_size')::int)::int AS pages`,
      );
      expect(pages).toBeGreaterThan(20);

      const copied = await copyEmbeddedToPostgres(source, database.url, 3);

      expect(copied).toContainEqual({ name: 'data_pieces.readings', rows: 3000 });
      expect(copied).toContainEqual({ name: 'alerts', rows: 0 });
      const fingerprint = `SELECT md5(string_agg(id || '|' || note || '|' || extract(epoch FROM at), ',' ORDER BY id)) AS sum FROM data_pieces.readings`;
      const [[fromEmbedded], [fromPostgres]] = [await source.query<{ sum: string }>(fingerprint), await target.query<{ sum: string }>(fingerprint)];
      expect(fromPostgres.sum).toBe(fromEmbedded.sum);
    } finally {
      await target.close();
      await source.close();
      await database.drop();
    }
  }, 120_000);
});
