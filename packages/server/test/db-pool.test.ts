import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/databases.js';
import { needs } from './support/requirements.js';

/** pg closes a connection left idle for 10 s unless told otherwise (idleTimeoutMillis). */
const pgIdleTimeoutMs = 10_000;

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('the PostgreSQL pool', () => {
  it('keeps its connections through a lull longer than pg closes idle ones after: the next burst opens no new session', async () => {
    const database = await openTestDatabase('postgres', { migrated: false });
    try {
      // Four transactions at once, each holding its connection a moment: four sessions of the pool.
      const sessionsOfABurst = () =>
        Promise.all(
          Array.from({ length: 4 }, () =>
            database.db.transaction(async (tx) => {
              const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
              await tx.query('SELECT pg_sleep(0.05)');
              return row.pid;
            }),
          ),
        );
      const before = new Set(await sessionsOfABurst());
      expect(before.size).toBe(4);
      await sleep(pgIdleTimeoutMs + 1_000);
      const after = await sessionsOfABurst();
      expect(after.filter((pid) => !before.has(pid))).toEqual([]);
    } finally {
      await database.drop();
    }
  }, 30_000);
});
