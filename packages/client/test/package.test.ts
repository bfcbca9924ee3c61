// The slow parts in one place: build, lint the package, pack it, install the tarball into a project
// outside the repository, and use it from ESM and CommonJS on Node 20 and Node 18, inside workerd
// (Cloudflare Workers) and through every example of the README, all against one real server.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standardSignature } from '../../server/src/webhooks/signer.js';
import { Vigil } from '../src/index.js';
import { startClientTestServer, type ClientTestServer } from './support/server.js';
import { docsExample } from '../../server/test/support/docs-examples.js';
import { repoRoot } from '../../server/test/support/processes.js';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const node18Version = '18.20.8';

interface Ran {
  stdout: string;
  stderr: string;
}


const readme = 'packages/client/README.md';

describe('the packed @vigil/client, installed outside the repository', () => {
  let server: ClientTestServer;
  let project: string;
  let tarball: string;
  let env: Record<string, string>;
  let node18: string;

  const runScript = async (runtime: string, file: string, source: string, extraEnv: Record<string, string> = {}): Promise<Ran> => {
    await writeFile(path.join(project, file), source);
    return run(runtime, [file], { cwd: project, env: { ...env, ...extraEnv }, timeout: 60_000 });
  };

  beforeAll(async () => {
    project = await mkdtemp(path.join(tmpdir(), 'vigil-client-consumer-'));
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    // The README's install lines as written, run where it says (the clone's root, then the project), the tarball in this test's project instead of /tmp.
    const [pack, install] = docsExample('install-from-clone', readme)
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').replaceAll('/tmp', project));
    const packing = run('npm', ['run', 'build'], { cwd: packageDir }).then(() => run('bash', ['-c', `${pack} --json`], { cwd: repoRoot }));
    // node@18 is the official Node.js 18 binary, published to npm.
    const installingNode18 = run('npm', ['install', '--no-audit', '--no-fund', `node@${node18Version}`], { cwd: project });
    [server] = await Promise.all([startClientTestServer(), packing, installingNode18]);
    tarball = path.join(project, (JSON.parse((await packing).stdout) as { filename: string }[])[0].filename);
    expect(install).toBe(`npm install ${tarball}`);
    await run('bash', ['-c', `${install} --no-audit --no-fund`], { cwd: project });
    node18 = path.join(project, 'node_modules', 'node', 'bin', 'node');
    env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? project, VIGIL_API_KEY: server.org.apiKey, VIGIL_BASE_URL: server.baseUrl };
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('publint and arethetypeswrong report nothing', async () => {
    const { messages } = await publint({ pkgDir: packageDir, strict: true });
    expect(messages).toEqual([]);
    const attw = await run(path.join(packageDir, '..', '..', 'node_modules', '.bin', 'attw'), [tarball, '--format', 'json'], { cwd: packageDir }).catch(
      (error: Ran) => error,
    );
    const report = JSON.parse(attw.stdout) as { analysis: { problems: unknown[] } };
    expect(report.analysis.problems).toEqual([]);
  });

  it('ships dist, the README and the LICENSE only, is ready to publish with provenance, and its edge entry point imports nothing from node:', async () => {
    const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ license: 'Apache-2.0', publishConfig: { access: 'public', provenance: true }, repository: { directory: 'packages/client' } });
    expect(await readFile(path.join(packageDir, 'LICENSE'), 'utf8')).toBe(await readFile(path.join(repoRoot, 'LICENSE'), 'utf8'));
    const list = await run('tar', ['-tzf', tarball]);
    expect(list.stdout.split('\n').filter(Boolean).sort()).toEqual(
      [
        'LICENSE',
        'README.md',
        'dist/index.cjs',
        'dist/index.d.cts',
        'dist/index.d.ts',
        'dist/index.js',
        'dist/node.cjs',
        'dist/node.d.cts',
        'dist/node.d.ts',
        'dist/node.js',
        'package.json',
      ].map((file) => `package/${file}`),
    );
    for (const file of ['index.js', 'index.cjs']) expect(await readFile(path.join(packageDir, 'dist', file), 'utf8')).not.toMatch(/node:/);
  });

  const consumerCalls = `
    const vigil = new Vigil();
    const project = await vigil.projects.create({ name: 'Consumer ' + process.version });
    const alert = await vigil.alerts.create({ title: 'From a consumer', severity: 'low', projectId: project.id });
    const titles = [];
    for await (const each of vigil.alerts.list({ projectId: project.id })) titles.push(each.title);
    const missing = await vigil.alerts.retrieve('alrt_00000000000000000000000000').catch((error) => error);
    const secret = 'whsec_' + Buffer.from('s'.repeat(32)).toString('base64');
    const body = JSON.stringify({ event: 'alert.created', orgId: 'org_1', timestamp: new Date().toISOString(), data: alert });
    const bad = await verifyWebhook(body, { 'x-service-signature': 'sha256=' + '0'.repeat(64) }, secret).catch((error) => error);
    const { response } = await vigil.withOptions({ maxRetries: 0 }).alerts.retrieve(alert.id, { timeout: 10_000 }).withResponse();
    const raw = await vigil.projects.retrieve(project.id).asResponse();
    console.log(JSON.stringify({
      titles,
      withResponse: response.status,
      asResponse: (await raw.json()).data.id === project.id,
      notFound: missing instanceof NotFoundError && missing instanceof VigilError,
      badSignature: bad instanceof WebhookVerificationError,
    }));
  `;
  const esm = `import Vigil, { NotFoundError, VigilError, verifyWebhook, WebhookVerificationError } from '@vigil/client';\n${consumerCalls}`;
  const cjs = `const { Vigil, NotFoundError, VigilError, verifyWebhook, WebhookVerificationError } = require('@vigil/client');\n(async () => {${consumerCalls}})();`;
  const expected = { titles: ['From a consumer'], withResponse: 200, asResponse: true, notFound: true, badSignature: true };

  it('an ESM and a CommonJS consumer use it on Node 20', async () => {
    expect(JSON.parse((await runScript(process.execPath, 'esm.mjs', esm)).stdout)).toEqual(expected);
    expect(JSON.parse((await runScript(process.execPath, 'cjs.cjs', cjs)).stdout)).toEqual(expected);
  });

  it('an ESM and a CommonJS consumer use it on Node 18, whose Web Crypto is not global', async () => {
    expect((await run(node18, ['--version'])).stdout.trim()).toBe(`v${node18Version}`);
    expect(JSON.parse((await runScript(node18, 'esm18.mjs', esm)).stdout)).toEqual(expected);
    expect(JSON.parse((await runScript(node18, 'cjs18.cjs', cjs)).stdout)).toEqual(expected);
  });

  it("runs the README's Worker in workerd (Cloudflare Workers) against the server", async () => {
    const worker = docsExample('worker', readme);
    await writeFile(path.join(project, 'worker.mjs'), worker);
    const bundled = await build({
      entryPoints: [path.join(project, 'worker.mjs')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
    });
    const script = bundled.outputFiles[0].text;
    expect(script).not.toMatch(/node:/);
    const secret = 'whsec_' + Buffer.from('w'.repeat(32)).toString('base64');
    const mf = new Miniflare({
      modules: true,
      script,
      compatibilityDate: '2024-09-23',
      bindings: { VIGIL_API_KEY: server.org.apiKey, VIGIL_BASE_URL: server.baseUrl, VIGIL_WEBHOOK_SECRET: secret },
    });
    try {
      const vigil = new Vigil({ apiKey: server.org.apiKey, baseUrl: server.baseUrl });
      const projectId = (await vigil.projects.create({ name: 'Edge' })).id;
      await vigil.alerts.create({ title: 'Seen from the edge', severity: 'high', projectId });
      const answer = await mf.dispatchFetch('http://worker.test/');
      expect(answer.headers.get('x-vigil-request-id')).toMatch(/^req_/);
      const listed = (await answer.json()) as string[];
      expect(listed).toContain('Seen from the edge');

      const body = JSON.stringify({ event: 'alert.resolved', orgId: server.org.orgId, timestamp: new Date().toISOString(), data: {} });
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = { 'webhook-id': 'dlv_edge', 'webhook-timestamp': String(timestamp), 'webhook-signature': standardSignature(secret, 'dlv_edge', timestamp, body) };
      const verified = await mf.dispatchFetch('http://worker.test/', { method: 'POST', body, headers });
      expect(await verified.json()).toEqual({ received: 'alert.resolved' });
      const forged = await mf.dispatchFetch('http://worker.test/', { method: 'POST', body: body.replace('resolved', 'deleted'), headers });
      expect(forged.status).toBe(500);
    } finally {
      await mf.dispose();
    }
  });
});
