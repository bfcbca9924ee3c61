import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Every spool file's name starts with this, so that the start-up sweep touches nothing else. */
export const spoolPrefix = 'vigil-upload-';

/** Where uploads that need random access are spooled: `uploads/` in the data directory (0700). */
export const spoolDirectory = (dataDir: string): string => path.join(dataDir, 'uploads');

export interface Spool {
  file: FileHandle;
  size: number;
}

/**
 * Writes an upload to a private file (0600) and hands back the open file. The name is removed as
 * soon as the file is open, so nothing can be left on disk by any path out of the upload, a crash
 * included: the space is freed when the handle closes or the process dies. The caller closes it in
 * a `finally`. The size is bounded by the upload limit the source already enforces.
 */
export async function spoolUpload(source: AsyncIterable<Buffer>, directory: string): Promise<Spool> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const name = path.join(directory, `${spoolPrefix}${randomUUID()}`);
  const file = await open(name, 'wx+', 0o600);
  try {
    await unlink(name);
    let size = 0;
    for await (const chunk of source) {
      await file.write(chunk, 0, chunk.length, size);
      size += chunk.length;
    }
    return { file, size };
  } catch (error) {
    await file.close();
    throw error;
  }
}

/**
 * Removes spool files older than this process: left by a process that died in the instant between
 * creating one and removing its name. Run at start-up. Another live process on the same data
 * directory loses nothing: its spool files lose their names as soon as they exist, and removing a
 * name never touches a file that is open.
 */
export async function sweepSpoolLeftovers(directory: string, olderThan: Date): Promise<number> {
  const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  let removed = 0;
  for (const name of names.filter((entry) => entry.startsWith(spoolPrefix))) {
    const full = path.join(directory, name);
    const info = await stat(full).catch(() => undefined);
    if (!info?.isFile() || info.mtime >= olderThan) continue;
    await rm(full, { force: true });
    removed += 1;
  }
  return removed;
}
