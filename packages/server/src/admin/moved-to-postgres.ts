import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/*
 * After `vigil migrate-to-postgres` the embedded files are a stale copy: a server started on them
 * (DATABASE_URL forgotten) would take writes into the wrong database and send old pending
 * deliveries again. The move leaves this marker, and a start on the directory refuses while it is there.
 */

const markerFile = (dataDir: string) => path.join(dataDir, 'moved-to-postgres.json');

interface Moved {
  /** The target's URL, its password replaced. */
  target: string;
  movedAt: string;
}

export async function markMovedToPostgres(dataDir: string, target: string, movedAt: Date): Promise<void> {
  const moved: Moved = { target, movedAt: movedAt.toISOString() };
  await writeFile(markerFile(dataDir), `${JSON.stringify(moved)}\n`, { mode: 0o600 });
}

/** Throws the one line a start prints when the embedded directory was moved to PostgreSQL. */
export async function refuseIfMovedToPostgres(dataDir: string): Promise<void> {
  const text = await readFile(markerFile(dataDir), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return;
  const moved = JSON.parse(text) as Moved;
  throw new Error(
    `${dataDir} was moved to PostgreSQL (${moved.target}) by vigil migrate-to-postgres at ${moved.movedAt}: ` +
      `start with DATABASE_URL set to that database, or set VIGIL_IGNORE_MOVED_TO_POSTGRES=true to run on the old embedded copy anyway`,
  );
}
