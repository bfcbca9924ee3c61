// Every fenced code block of the README, docs/*.md (new pages included) and the two clients'
// READMEs, run as written against a live server started as `npm start` starts it: sh in bash
// (curl made strict), js in Node, ts checked by `tsc --strict` and run, python checked by pyright
// (strict, Python 3.9) and run in one interpreter per page, in order. A block it cannot run carries
// `<!-- not run: reason -->` or `<!-- example: name -->` (run by a test of its own). The rules are
// in docs/architecture.md, "Docs that run".
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockProblem, type DocsBlock, docsPages, readDocsPage, where } from './support/docs-blocks.js';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';
import { call, documentedStarts, repoRoot, runCliJson, type ServerProcess, startServerProcess, tempDataDir } from './support/processes.js';
import { PythonSession } from './support/python-session.js';
import { needs } from './support/requirements.js';

const run = promisify(execFile);
const pages = docsPages().map(readDocsPage);
const documentedServer = 'http://127.0.0.1:3000';
const runnable = (block: DocsBlock) => block.language !== undefined && block.notRun === undefined && block.example === undefined;
const pythonReady = pages.some((page) => page.blocks.some((block) => runnable(block) && block.language === 'python')) && needs('python', 'the Python examples of the docs');

/** A file name for a block: its page and line. */
const fileFor = (block: DocsBlock, extension: string) => `${block.page.replace(/[^\w]+/g, '_')}_L${block.line}.${extension}`;

/** Every test source, to find the test that runs an `example:` block. */
function testSources(): string {
  const roots = ['packages/server/test', 'packages/client/test', 'packages/embed/test', 'clients/python/tests'];
  return roots
    .flatMap((root) => (readdirSync(path.join(repoRoot, root), { recursive: true }) as string[]).map((file) => path.join(repoRoot, root, file)))
    .filter((file) => /\.(ts|py)$/.test(file))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}

describe('every code block of the docs is run, or marked with the reason it is not', () => {
  const sources = testSources();
  it.each(pages.map((page) => [page.page, page] as const))('%s', (_page, page) => {
    const problems = page.blocks.flatMap((block) => {
      const problem = blockProblem(block);
      if (problem) return [`${where(block)}: ${problem}`];
      const named = [`'${block.example}'`, `"${block.example}"`, `example: ${block.example} `];
      if (block.example !== undefined && !named.some((name) => sources.includes(name))) {
        return [`${where(block)}: <!-- example: ${block.example} --> names an example no test reads (docsExample('${block.example}', …))`];
      }
      return [];
    });
    for (const [setting] of Object.entries(page.serverSettings)) {
      if (!page.text.replace(/<!--[\s\S]*?-->/g, '').includes(setting)) problems.push(`${page.page}: its examples need ${setting}, which its text never tells the reader`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

interface LiveServer {
  server: ServerProcess;
  env: Record<string, string>;
  remove(): Promise<void>;
}

/** A server as `npm start` runs it, on a data directory of its own with an organization made by the CLI, as the README makes one. */
async function startLiveServer(settings: Record<string, string>, fake: FakeLlm): Promise<LiveServer> {
  const data = await tempDataDir({ migrated: true });
  const base = { VIGIL_DATA_DIR: data.dir };
  // Enterprise: a page's examples make a few hundred requests within a minute.
  const created = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Acme', '--plan', 'enterprise', '--admin-email', 'you@example.com'], base);
  const server = await startServerProcess({ ...base, AI_BASE_URL: fake.baseUrl, AI_MODEL: 'docs-model', ...settings });
  const project = await call(server.url, 'POST', 'projects', { apiKey: created.apiKey, body: { name: 'Docs' } });
  const projectId = (project.body.data as { id: string }).id;
  const alert = await call(server.url, 'POST', 'alerts', { apiKey: created.apiKey, body: { projectId, title: 'Disk full', severity: 'critical' } });
  return {
    server,
    env: {
      VIGIL_API_KEY: created.apiKey,
      VIGIL_BASE_URL: `${server.url}/api/v1`,
      PROJECT_ID: projectId,
      ALERT_ID: (alert.body.data as { id: string }).id,
    },
    async remove() {
      await server.stop();
      await data.remove();
    },
  };
}

/** The documented address replaced by the live server's: the only change made to a block. */
const pointedAt = (code: string, url: string) => code.replaceAll(documentedServer, url).replaceAll(documentedServer.replace('http:', 'ws:'), url.replace('http:', 'ws:'));

// One server per set of page settings (most pages need none), shared by the pages, started when first needed.
const servers = new Map<string, Promise<LiveServer>>();
let fake: Promise<FakeLlm> | undefined;
function liveServerFor(settings: Record<string, string>): Promise<LiveServer> {
  fake ??= startFakeLlm();
  const key = JSON.stringify(Object.entries(settings).sort());
  if (!servers.has(key)) servers.set(key, fake.then((model) => startLiveServer(settings, model)));
  return servers.get(key)!;
}

/**
 * Pyright over every page's python blocks, each page one module of its own (blocks in order: later
 * blocks use what earlier ones defined, as in the session that runs them), in one run: each run
 * spends seconds analysing the client package before it reaches a page. The errors of each block.
 */
let pythonChecked: Promise<Map<string, string[]>> | undefined;
function pythonTypeErrors(): Promise<Map<string, string[]>> {
  pythonChecked ??= (async () => {
    const errors = new Map<string, string[]>();
    const modules = pages
      .map((page) => ({ file: `${page.page.replace(/[^\w]+/g, '_')}.py`, blocks: page.blocks.filter((block) => runnable(block) && block.language === 'python') }))
      .filter((module) => module.blocks.length > 0);
    if (modules.length === 0 || !pythonReady) return errors;
    const check = await mkdtemp(path.join(os.tmpdir(), 'vigil-docs-pycheck-'));
    try {
      const starts = new Map<string, number[]>();
      for (const { file, blocks } of modules) {
        const lines: number[] = [];
        let source = '';
        for (const block of blocks) {
          lines.push(source.split('\n').length);
          source += `${block.code}\n`;
        }
        starts.set(file, lines);
        await writeFile(path.join(check, file), source);
      }
      const config = { typeCheckingMode: 'strict', pythonVersion: '3.9', extraPaths: [path.join(repoRoot, 'clients/python/src')], reportMissingModuleSource: false };
      await writeFile(path.join(check, 'pyrightconfig.json'), JSON.stringify(config));
      const pyright = path.join(repoRoot, 'node_modules/.bin/pyright');
      const files = modules.map((module) => module.file);
      const result = await run(pyright, ['--outputjson', '--pythonpath', '/usr/bin/python3', ...files], { cwd: check }).catch((error: { stdout: string }) => error);
      const report = JSON.parse(result.stdout) as { generalDiagnostics: { file: string; severity: string; message: string; range: { start: { line: number } } }[] };
      for (const diagnostic of report.generalDiagnostics.filter((one) => one.severity === 'error')) {
        const module = modules.find((candidate) => path.basename(diagnostic.file) === candidate.file);
        if (!module) throw new Error(`pyright reported on ${diagnostic.file}, not a page's module: ${diagnostic.message}`);
        const row = diagnostic.range.start.line + 1;
        const moduleStarts = starts.get(module.file)!;
        const index = moduleStarts.filter((start) => start <= row).length - 1;
        const key = where(module.blocks[index]);
        errors.set(key, [...(errors.get(key) ?? []), `line ${row - moduleStarts[index] + 1}: ${diagnostic.message}`]);
      }
      return errors;
    } finally {
      await rm(check, { recursive: true, force: true });
    }
  })();
  return pythonChecked;
}
beforeAll(() => {
  // Every server the pages need starts at once, beside the type checks.
  for (const page of pages.filter((candidate) => candidate.blocks.some(runnable))) void liveServerFor(page.serverSettings);
  // Its failure is the pages' to report, when they await it.
  pythonTypeErrors().catch(() => undefined);
});
afterAll(async () => {
  for (const server of servers.values()) await (await server).remove();
  await (await fake)?.close();
});

describe.each(pages.filter((page) => page.blocks.some(runnable)).map((page) => [page.page, page] as const))('%s, run as written', (_page, page) => {
  const blocks = page.blocks.filter((block) => runnable(block) && (block.language !== 'python' || pythonReady));
  let live: LiveServer;
  let work: string;
  let python: PythonSession | undefined;
  let typeErrors: Map<string, string[]>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'vigil-docs-'));
    // A project of the reader's own: Node resolves @vigil/client, tsx and graphql-ws from the repository's install.
    await symlink(path.join(repoRoot, 'node_modules'), path.join(work, 'node_modules'));
    await writeFile(path.join(work, 'package.json'), JSON.stringify({ name: 'reader', private: true, type: 'module' }));
    const [started, checked] = await Promise.all([liveServerFor(page.serverSettings), typeCheck(blocks, work)]);
    live = started;
    typeErrors = checked;
    // Chat answers come from a loopback model that says the same thing to every question.
    const model = await fake!;
    model.reset();
    model.script(...Array.from({ length: 50 }, () => ({ content: 'web-1 is the busiest host.' })));
    env = { ...process.env, ...live.env, PORT: '0' };
    if (blocks.some((block) => block.language === 'python')) {
      python = new PythonSession({ ...env, PYTHONPATH: path.join(repoRoot, 'clients/python/src'), PYTHONDONTWRITEBYTECODE: '1' }, work);
    }
  }, 300_000);
  afterAll(async () => {
    python?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it.each(blocks.map((block) => [`${where(block)} (${block.info})`, block] as const))('%s', async (_where, block) => {
    const errors = typeErrors.get(where(block)) ?? [];
    if (errors.length > 0) expect.fail(`${where(block)} does not pass ${block.language === 'ts' ? 'tsc --strict' : 'pyright (strict, Python 3.9)'}:\n${errors.join('\n')}\n--- the block:\n${block.code}`);
    const code = pointedAt(block.code, live.server.url);
    const failed = (why: string) => expect.fail(`${where(block)} failed when run as written:\n${why}\n--- the block:\n${block.code}`);
    switch (block.language) {
      case 'sh': {
        const script = `set -eo pipefail\ncurl() { command curl --silent --show-error --fail-with-body "$@"; echo; }\n${code}`;
        await run('bash', ['-c', script], { cwd: work, env, timeout: 60_000 }).catch((error: { stdout: string; stderr: string }) => failed(`${error.stdout}\n${error.stderr}`));
        break;
      }
      case 'js':
      case 'ts': {
        // A ts block runs as tsc compiled it (typeCheck); the documented address is put into the output.
        const file = block.language === 'ts' ? path.join('typecheck', 'out', fileFor(block, 'mjs')) : fileFor(block, 'mjs');
        const source = block.language === 'ts' ? pointedAt(readFileSync(path.join(work, file), 'utf8'), live.server.url) : code;
        await writeFile(path.join(work, file), source);
        await run(process.execPath, [file], { cwd: work, env, timeout: 60_000 }).catch((error: { stdout: string; stderr: string; message: string }) =>
          failed(`${error.stdout}\n${error.stderr || error.message}`),
        );
        break;
      }
      case 'python': {
        const outcome = await python!.run(where(block), code);
        if (!outcome.ok) failed(`${outcome.output}\n${outcome.error ?? ''}`);
        break;
      }
    }
  });

  /** tsc --strict over the page's ts blocks, and pyright's findings in its python blocks (pythonTypeErrors); the errors of each block. */
  async function typeCheck(checked: DocsBlock[], dir: string): Promise<Map<string, string[]>> {
    const errors = new Map<string, string[]>();
    const add = (block: DocsBlock, message: string) => errors.set(where(block), [...(errors.get(where(block)) ?? []), message]);
    const ts = checked.filter((block) => block.language === 'ts');
    const py = checked.filter((block) => block.language === 'python');
    const checks: Promise<void>[] = [];
    if (ts.length > 0) {
      checks.push(
        (async () => {
          const check = path.join(dir, 'typecheck');
          await mkdir(check);
          for (const block of ts) await writeFile(path.join(check, fileFor(block, 'mts')), block.code);
          const tsconfig = { compilerOptions: { strict: true, outDir: 'out', target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true, types: ['node'] }, include: ['*.mts'] };
          await writeFile(path.join(check, 'tsconfig.json'), JSON.stringify(tsconfig));
          const tsc = path.join(repoRoot, 'node_modules/.bin/tsc');
          const result = await run(tsc, ['-p', 'tsconfig.json', '--pretty', 'false'], { cwd: check }).catch((error: { stdout: string }) => error);
          for (const line of result.stdout.split('\n')) {
            const block = ts.find((candidate) => line.startsWith(`${fileFor(candidate, 'mts')}(`));
            if (block) add(block, line.replace(/^[^(]+\((\d+),(\d+)\)/, (_all, row: string, column: string) => `line ${Number(row)}, column ${column}`));
          }
        })(),
      );
    }
    if (py.length > 0 && pythonReady) {
      checks.push(
        (async () => {
          const found = await pythonTypeErrors();
          for (const block of py) for (const message of found.get(where(block)) ?? []) add(block, message);
        })(),
      );
    }
    await Promise.all(checks);
    return errors;
  }
});

describe("the README's first steps, on a fresh data directory", () => {
  it('npm start, then the org create and curl lines exactly as written, answer the first authenticated 200', { timeout: 240_000 }, async () => {
    const block = readDocsPage('README.md').blocks.find((candidate) => candidate.example === 'first-steps');
    if (!block) expect.fail('README.md has no <!-- example: first-steps --> block');
    const lines = block.code.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));
    expect(lines[0]).toBe('npm ci && npm start');
    const data = await tempDataDir();
    // npm ci has run in this checkout; the server listens on a free port instead of 3000, which another test may hold.
    const server = await startServerProcess({ VIGIL_DATA_DIR: data.dir }, documentedStarts['npm start']);
    try {
      expect(server.output.stdout).toContain('npx vigil org create --name "Acme" --plan business --admin-email you@example.com');
      const created = await run('bash', ['-c', lines[1]], { cwd: repoRoot, env: { ...process.env, VIGIL_DATA_DIR: data.dir } });
      const apiKey = /svc_live_\w+/.exec(created.stdout)?.[0];
      expect(apiKey, created.stdout).toBeDefined();
      const curl = await run('bash', ['-c', pointedAt(lines[2], server.url).replace('svc_live_…', apiKey!)]);
      expect(JSON.parse(curl.stdout)).toMatchObject({ data: [] });
    } finally {
      await server.stop();
      await data.remove();
    }
  });
});
