// @ts-check
// Plain JavaScript: this module decides whether tsx is needed, so it must load without it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** packages/server: its TypeScript sources are in src/, their compiled build in dist/. */
export const serverRoot = fileURLToPath(new URL('..', import.meta.url));
const buildRecipe = fileURLToPath(new URL('./build.js', import.meta.url));
export const digestFile = 'sources.sha256';

/**
 * Every file under `root/src`, as paths relative to it, in order: what the build compiles or copies
 * and what its digest covers.
 * @param {string} [root]
 */
export function sourceFiles(root = serverRoot) {
  const sources = path.join(root, 'src');
  return readdirSync(sources, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(sources, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Every file under `root/src` (path and content, in path order) and the build recipe itself,
 * hashed: the digest a build writes beside its output. Reading the sources takes 10–20 ms, and a
 * digest of their content (not their times) cannot be fooled by a checkout or a restored file.
 * @param {string} [root]
 */
export function sourcesDigest(root = serverRoot) {
  const hash = createHash('sha256').update(readFileSync(buildRecipe));
  for (const file of sourceFiles(root)) hash.update(`\0${file}\0`).update(readFileSync(path.join(root, 'src', file)));
  return hash.digest('hex');
}

/**
 * The digest `root/dist` was built from, or undefined when there is no finished build.
 * @param {string} [root]
 */
export function compiledDigest(root = serverRoot) {
  try {
    return readFileSync(path.join(root, 'dist', digestFile), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Whether `root/dist` was built from the sources as they are now.
 * @param {string} [root]
 */
export function compiledBuildIsCurrent(root = serverRoot) {
  return compiledDigest(root) === sourcesDigest(root);
}

/**
 * The module `name` (without extension, relative to src/) from the compiled build when it is
 * current, otherwise from the TypeScript sources through tsx. The build spares a command or a server
 * start about a second of CPU: tsx resolves and compiles every module through a loader thread.
 * An edited source is never run stale: the sources are run instead, until `npm run build`.
 * @param {string} name
 * @param {string} [root]
 * @returns {Promise<Record<string, unknown>>}
 */
export async function importVigilModule(name, root = serverRoot) {
  if (compiledBuildIsCurrent(root)) return import(pathToFileURL(path.join(root, 'dist', `${name}.js`)).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(root, 'src', `${name}.ts`)).href);
}
