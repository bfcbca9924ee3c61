import { chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The data directory holds every tenant's data (the embedded database, exports, the secret key):
 * it is made readable by the server's own user only. From now on files are created 0600 and
 * directories 0700 (umask 077), and what is already there is tightened. PGlite chmods the files it
 * creates to 0666 regardless; the directory's 0700 is what keeps those from other users.
 */
export async function keepDataPrivate(dataDir: string): Promise<void> {
  process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await tighten(dataDir);
}

async function tighten(directory: string): Promise<void> {
  await chmod(directory, 0o700);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) await tighten(full);
    else if (entry.isFile()) await chmod(full, 0o600);
  }
}
