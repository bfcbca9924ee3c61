import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { EmbeddedDb } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';

/**
 * Where the run's PGlite images are (set by the global setup below). Without it, as in a bench
 * that borrows the test support, every in-memory database is made by initdb as before.
 */
const imagesVariable = 'VIGIL_TEST_PGLITE_IMAGES';

export type PgliteImage = 'empty' | 'migrated';

/**
 * Vitest's global setup: an empty and a migrated in-memory database, made once per run and kept as
 * images, so that each test database starts as a copy (under a second) instead of running initdb
 * (3–5 s of CPU) and the migrations again.
 */
export default async function makePgliteImages(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pglite-images-'));
  const db = await EmbeddedDb.open(undefined, { statementTimeoutMs: 60_000, poolSize: 1, connectTimeoutMs: 60_000 });
  try {
    await writeFile(path.join(dir, 'empty.tar'), await db.image());
    await migrate(db);
    await writeFile(path.join(dir, 'migrated.tar'), await db.image());
  } finally {
    await db.close();
  }
  process.env[imagesVariable] = dir;
  return () => rm(dir, { recursive: true, force: true });
}

const loaded = new Map<PgliteImage, Promise<Uint8Array<ArrayBuffer>>>();

/** The run's image of that database, or undefined outside a test run. */
export function pgliteImage(image: PgliteImage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const dir = process.env[imagesVariable];
  if (!dir) return Promise.resolve(undefined);
  let bytes = loaded.get(image);
  if (!bytes) {
    bytes = readFile(path.join(dir, `${image}.tar`)).then((file) => new Uint8Array(file.buffer, file.byteOffset, file.byteLength));
    loaded.set(image, bytes);
  }
  return bytes;
}

/**
 * Writes an image out as PGlite's files in `directory` (what `vigil restore` leaves): a process
 * given that data directory opens an existing, migrated database instead of running initdb.
 * Unpacked here rather than by PGlite's `loadDataDir`, as `restoreEmbedded` does, which would
 * start a database in the test's own thread only to write the same files.
 */
export async function writePgliteImage(image: Uint8Array, directory: string): Promise<void> {
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const target = path.join(directory, header.name);
    const written =
      header.type === 'directory'
        ? mkdir(target, { recursive: true, mode: 0o700 }).then(() => void stream.resume())
        : buffer(stream).then((content) => writeFile(target, content, { mode: 0o600 }));
    written.then(() => next(), next);
  });
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await pipeline(Readable.from([image]), extract);
}
