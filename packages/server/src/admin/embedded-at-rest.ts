import { access } from 'node:fs/promises';
import path from 'node:path';
import { embeddedDirectory } from '../db/connect.js';
import { isServerListening } from './socket.js';

/**
 * Backups and the move to PostgreSQL read the embedded database's files directly: no server may
 * hold them meanwhile (PGlite lets one process in, and the copy must be of one moment).
 */
export async function requireEmbeddedAtRest(dataDir: string, what: string): Promise<void> {
  if (await isServerListening(dataDir)) {
    throw new Error(`a Vigil server is using ${dataDir}; stop it first (${what} needs the embedded database at rest)`);
  }
  const present = await access(path.join(embeddedDirectory(dataDir), 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!present) throw new Error(`there is no embedded database in ${dataDir} (VIGIL_DATA_DIR)`);
}
