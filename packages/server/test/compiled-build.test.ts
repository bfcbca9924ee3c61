import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildServer } from '../launch/build.js';
import { compiledBuildIsCurrent } from '../launch/compiled.js';

const run = promisify(execFile);
const launcher = new URL('../launch/compiled.js', import.meta.url).href;

describe('the compiled build (npm run build) and the launcher that picks it', () => {
  let root: string;

  /** A package of two sources and a migration, laid out as packages/server is. */
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'vigil-build-'));
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module' }));
    await mkdir(path.join(root, 'src/db/migrations'), { recursive: true });
    await writeFile(path.join(root, 'src/cli.ts'), `import { greeting } from './db/greeting.js';\nexport const runFrom: string = import.meta.url;\nexport const said: string = greeting('build');\n`);
    await writeFile(path.join(root, 'src/db/greeting.ts'), `export function greeting(name: string): string {\n  return \`hello \${name}\`;\n}\n`);
    await writeFile(path.join(root, 'src/db/migrations/0001_core.sql'), 'CREATE TABLE t (id int);\n');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** What `node bin/vigil.js` would load as `cli`, in a process of its own: where it ran from and what it computed. */
  async function launch(): Promise<{ runFrom: string; said: string }> {
    const script = `const { importVigilModule } = await import(process.argv[1]); const { runFrom, said } = await importVigilModule('cli', process.argv[2]); console.log(JSON.stringify({ runFrom, said }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, launcher, root]);
    return JSON.parse(stdout) as { runFrom: string; said: string };
  }

  it('compiles every source to JavaScript beside the copied migrations, and does nothing when run again', async () => {
    expect(await buildServer(root)).toBe(true);
    expect(await readFile(path.join(root, 'dist/db/greeting.js'), 'utf8')).not.toContain(': string');
    expect(await readFile(path.join(root, 'dist/db/migrations/0001_core.sql'), 'utf8')).toBe('CREATE TABLE t (id int);\n');
    expect(compiledBuildIsCurrent(root)).toBe(true);
    expect(await buildServer(root)).toBe(false);
    expect((await readdir(root)).sort()).toEqual(['dist', 'package.json', 'src']);
  });

  it('runs the build when it is of the sources as they are, and the sources through tsx once one is edited', async () => {
    await buildServer(root);
    expect(await launch()).toEqual({ runFrom: expect.stringMatching(/\/dist\/cli\.js$/), said: 'hello build' });

    await writeFile(path.join(root, 'src/db/greeting.ts'), `export function greeting(name: string): string {\n  return \`edited \${name}\`;\n}\n`);
    expect(compiledBuildIsCurrent(root)).toBe(false);
    expect(await launch()).toEqual({ runFrom: expect.stringMatching(/\/src\/cli\.ts$/), said: 'edited build' });

    await buildServer(root);
    expect(await launch()).toEqual({ runFrom: expect.stringMatching(/\/dist\/cli\.js$/), said: 'edited build' });
  });

  it('takes a build as stale when a file is added, removed or renamed, or when its digest is missing', async () => {
    await buildServer(root);
    await writeFile(path.join(root, 'src/db/migrations/0002_more.sql'), 'CREATE TABLE u (id int);\n');
    expect(compiledBuildIsCurrent(root)).toBe(false);
    await rm(path.join(root, 'src/db/migrations/0002_more.sql'));
    expect(compiledBuildIsCurrent(root)).toBe(true);

    await rm(path.join(root, 'src/db/migrations/0001_core.sql'));
    await writeFile(path.join(root, 'src/db/migrations/0001_renamed.sql'), 'CREATE TABLE t (id int);\n');
    expect(compiledBuildIsCurrent(root)).toBe(false);

    await buildServer(root);
    expect(existsSync(path.join(root, 'dist/db/migrations/0001_core.sql'))).toBe(false);
    await rm(path.join(root, 'dist/sources.sha256'));
    expect(compiledBuildIsCurrent(root)).toBe(false);
    expect((await launch()).runFrom).toMatch(/\/src\/cli\.ts$/);
  });

  it('leaves one finished build and nothing half-written when two builds run at once (npm ci beside npm test)', async () => {
    const built = await Promise.all([buildServer(root), buildServer(root), buildServer(root)]);
    expect(built).toContain(true);
    expect(compiledBuildIsCurrent(root)).toBe(true);
    expect((await readdir(root)).sort()).toEqual(['dist', 'package.json', 'src']);
    expect((await launch()).said).toBe('hello build');
  });

  it("is current for this repository's own sources once the tests' global setup has run", () => {
    expect(compiledBuildIsCurrent()).toBe(true);
  });
});
