import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import pg from 'pg';
import { type AlertRow, toAlert } from '../../packages/server/src/modules/alerts/store.js';
import { pageWindow, toPage } from '../../packages/server/src/platform/pagination.js';

/**
 * The data path's limit: the query Vigil's alert list runs (db/list.ts selectPage, no filters,
 * 20 items plus one to learn whether more follow), rows mapped by Vigil's own toAlert and toPage,
 * serialized by Fastify's default (JSON.stringify, no response schema). No auth, rate limit,
 * request id or logging. Sent unnamed, as a plain route sends it: Vigil keeps its list statement
 * prepared (docs/architecture.md), which saves PostgreSQL about half its CPU per request, and
 * BENCHMARKS.md gives Vigil against this route with a prepared statement too (2026-12-03 evening).
 */
const orgId = process.env.BENCH_ORG_ID;
if (!orgId) throw new Error('BENCH_ORG_ID is required');
// Vigil's own secret, so that both seal the same next-page cursor and answer the same JSON.
const secretKey = process.env.VIGIL_SECRET_KEY;
if (!secretKey) throw new Error('VIGIL_SECRET_KEY is required');
const sql = 'SELECT * FROM alerts WHERE org_id = $1 ORDER BY id DESC LIMIT $2';
const window = pageWindow({ limit: 20 }, orgId, secretKey);

async function openQuery(): Promise<{ query: (params: unknown[]) => Promise<AlertRow[]>; close: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    // Kept open through the idle seconds between cases, as Vigil's pool keeps its connections (db/connect.ts).
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, min: 10 });
    return { query: async (params) => (await pool.query<AlertRow>(sql, params)).rows, close: () => pool.end() };
  }
  const dir = process.env.BENCH_PGLITE_DIR;
  if (!dir) throw new Error('DATABASE_URL or BENCH_PGLITE_DIR is required');
  const lite = await PGlite.create(dir);
  return { query: async (params) => (await lite.query<AlertRow>(sql, params)).rows, close: () => lite.close() };
}

const database = await openQuery();
const app = Fastify({ logger: false });
app.get('/alerts', async () => toPage((await database.query([orgId, window.limit + 1])).map(toAlert), window));
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(database.close).then(() => process.exit(0)));
