// @ts-check
// `npm run build` (which `npm ci` runs): packages/server/src compiled file by file into dist/, the
// way tsx compiles them (esbuild, the same tsconfig), with every other file (migrations, the GraphQL
// schema) copied. Plain JavaScript, as launch/compiled.js, which reads the digest it writes.
import { build } from 'esbuild';
import { cp, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledDigest, digestFile, serverRoot, sourceFiles, sourcesDigest } from './compiled.js';

/**
 * Builds `root/dist` unless it is current. The build is written beside it and renamed into place
 * with its digest in it, so a build cut short or running is never taken for a finished one. Answers
 * whether it built.
 * @param {string} [root]
 */
export async function buildServer(root = serverRoot) {
  const digest = sourcesDigest(root);
  if (compiledDigest(root) === digest) return false;
  const sources = path.join(root, 'src');
  const files = sourceFiles(root);
  const staging = await mkdtemp(path.join(root, '.dist-'));
  const retired = `${staging}.old`;
  try {
    await build({
      entryPoints: files.filter((file) => file.endsWith('.ts')).map((file) => path.join(sources, file)),
      outdir: staging,
      outbase: sources,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    for (const file of files.filter((file) => !file.endsWith('.ts'))) await cp(path.join(sources, file), path.join(staging, file));
    await writeFile(path.join(staging, digestFile), digest);
    // Another build of the same sources (npm ci and npm test at once) may finish meanwhile: the old
    // build is renamed aside, never deleted in place, so that two builds never delete the same tree.
    if (compiledDigest(root) === digest) return false;
    const dist = path.join(root, 'dist');
    await rename(dist, retired).catch((error) => {
      if (error.code !== 'ENOENT') throw error;
    });
    try {
      await rename(staging, dist);
    } catch (error) {
      if (compiledDigest(root) === digest) return false;
      throw error;
    }
    return true;
  } finally {
    await Promise.all([rm(staging, { recursive: true, force: true }), rm(retired, { recursive: true, force: true })]);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const built = await buildServer();
  process.stdout.write(built ? 'packages/server/dist built from src\n' : 'packages/server/dist is current\n');
}
