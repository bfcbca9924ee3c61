import { createReadStream, createWriteStream } from 'node:fs';
import { access, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import tar from 'tar-stream';
import { embeddedDirectory } from '../db/connect.js';
import { keepDataPrivate } from '../platform/private-files.js';
import { requireEmbeddedAtRest } from './embedded-at-rest.js';
import { isServerListening } from './socket.js';

/*
 * A backup is a tar archive holding PGlite's own dump of its data directory (`database.tar.gz`,
 * which PGlite loads back as it is) and the secret key that seals the stored credentials and
 * webhook secrets, without which the restored data could not be used. It is taken while no server
 * holds the files, so it is one consistent moment of the database.
 */

const databaseEntry = 'database.tar.gz';
const keyEntry = 'secret.key';

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

export async function backupEmbedded(dataDir: string, outFile: string): Promise<{ file: string; bytes: number; includesKey: boolean }> {
  await requireEmbeddedAtRest(dataDir, 'a backup');
  const databaseDir = embeddedDirectory(dataDir);
  const file = path.resolve(outFile);
  if (await exists(file)) throw new Error(`${file} already exists; give a new file name`);
  const lite = await PGlite.create(databaseDir);
  let database: Buffer;
  try {
    database = Buffer.from(await (await lite.dumpDataDir('gzip')).arrayBuffer());
  } finally {
    await lite.close();
  }
  const key = await readFile(path.join(dataDir, keyEntry)).catch(() => undefined);
  const pack = tar.pack();
  pack.entry({ name: databaseEntry, mode: 0o600 }, database);
  if (key) pack.entry({ name: keyEntry, mode: 0o600 }, key);
  pack.finalize();
  // Written beside the target and renamed, so a failed backup never leaves a file that looks whole.
  const partial = `${file}.partial`;
  try {
    await pipeline(pack, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { file, bytes: (await stat(file)).size, includesKey: key !== undefined };
}

async function readArchive(file: string): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    buffer(stream).then((content) => {
      entries.set(header.name, content);
      next();
    }, next);
  });
  await pipeline(createReadStream(file), extract).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? `${file} does not exist` : `${file} is not a Vigil backup: ${error.message}`);
  });
  return entries;
}

export async function restoreEmbedded(dataDir: string, fromFile: string): Promise<{ includesKey: boolean }> {
  if (await isServerListening(dataDir)) throw new Error(`a Vigil server is using ${dataDir}; stop it and restore into a new, empty directory`);
  const entries = await readArchive(path.resolve(fromFile));
  const database = entries.get(databaseEntry);
  if (!database) throw new Error(`${fromFile} is not a Vigil backup (it has no ${databaseEntry})`);
  const present = (await exists(dataDir)) ? await readdir(dataDir) : [];
  if (present.includes(path.basename(embeddedDirectory(dataDir))) || present.includes(keyEntry)) {
    throw new Error(`${dataDir} (VIGIL_DATA_DIR) already holds an installation; restore into a new, empty directory`);
  }
  await keepDataPrivate(dataDir);
  const key = entries.get(keyEntry);
  if (key) await writeFile(path.join(dataDir, keyEntry), key, { mode: 0o600, flag: 'wx' });
  const lite = await PGlite.create({ dataDir: embeddedDirectory(dataDir), loadDataDir: new Blob([new Uint8Array(database)]) });
  await lite.close();
  await keepDataPrivate(dataDir);
  return { includesKey: key !== undefined };
}
