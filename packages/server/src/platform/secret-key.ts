import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The configured key, or (embedded mode only) the one kept in the data directory, made on first
 * start with owner-only permissions so that stored credentials stay readable after a restart.
 */
export async function resolveSecretKey(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}
