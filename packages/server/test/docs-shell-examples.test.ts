// Every `sh` block of these pages runs as written against a real server, with curl made strict
// (--fail-with-body: a 4xx/5xx fails the example). A block a user would not run as it stands (an
// operator's command needing a data directory, a placeholder-only fragment) is marked in the
// markdown with `<!-- not run: reason -->`, so skipping one is a visible decision in the page.
// docs/graphql.md has its own example test (graphql.docs.test.ts); so do the client READMEs.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { repoRoot } from './support/processes.js';

const run = promisify(execFile);
const ownTests = new Set(['graphql.md']);
const pages = (await readdir(path.join(repoRoot, 'docs'))).filter((page) => page.endsWith('.md') && !ownTests.has(page));
const documentedServer = 'http://127.0.0.1:3000';

interface ShellBlock {
  page: string;
  line: number;
  code: string;
  notRun: string | null;
}

async function shellBlocks(page: string): Promise<ShellBlock[]> {
  const text = await readFile(path.join(repoRoot, 'docs', page), 'utf8');
  return [...text.matchAll(/(?:<!-- not run: ([^>]*?) -->\s*)?^```sh\n([\s\S]*?)^```$/gm)].map((match) => ({
    page,
    line: text.slice(0, match.index).split('\n').length,
    code: match[2],
    notRun: match[1] ?? null,
  }));
}

const blocks = (await Promise.all(pages.map(shellBlocks))).flat();

describe('shell examples of docs/*.md, run as written', () => {
  let t: TestApp;
  let org: TestOrg;
  let projectId: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business');
    projectId = (await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Docs' } })).body.data.id;
    dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-docs-sh-'));
    await writeFile(path.join(dir, 'sales.csv'), 'Order ID,zip,amount\n1,02134,19.90\n2,94103,5.00\n');
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('marks every block it does not run with a reason', () => {
    expect(blocks.length).toBeGreaterThan(3);
    for (const block of blocks.filter((b) => b.notRun !== null)) expect(block.notRun!.trim().length, `${block.page}:${block.line}`).toBeGreaterThan(10);
  });

  it.each(blocks.filter((block) => block.notRun === null).map((block) => [`${block.page}:${block.line}`, block] as const))('%s', async (_where, block) => {
    const api = `${t.baseUrl}/api/v1`;
    const script = `set -eo pipefail\ncurl() { command curl --silent --show-error --fail-with-body "$@"; echo; }\n${block.code
      .replaceAll(documentedServer, t.baseUrl)
      .replaceAll('proj_…', projectId)}`;
    const env = { ...process.env, VIGIL_KEY: org.apiKey, KEY: org.apiKey, VIGIL: t.baseUrl, BASE: api, PROJECT: projectId };
    const { stdout } = await run('bash', ['-c', script], { cwd: dir, env }).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`${block.page}:${block.line} failed:\n${block.code}\n${error.stdout}\n${error.stderr}`);
    });
    for (const answer of stdout.split('\n').filter((line) => line.startsWith('{'))) {
      expect(JSON.parse(answer)).toHaveProperty('data');
    }
  });
});
