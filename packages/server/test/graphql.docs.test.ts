import { execFile, spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { repoRoot } from './support/processes.js';
import { createAlert, createProject } from './support/resources.js';
import { waitFor } from './support/webhooks/wait.js';

const run = promisify(execFile);
const docsUrl = 'http://127.0.0.1:3000';

async function blocks(language: string): Promise<string[]> {
  const text = await readFile(path.join(repoRoot, 'docs/graphql.md'), 'utf8');
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]);
}

describe('docs/graphql.md examples, run as written', () => {
  let t: TestApp;
  let org: TestOrg;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const project = await createProject(t, org, 'Docs');
    const alert = await createAlert(t, org, { projectId: project.id, title: 'Disk full', severity: 'critical' });
    env = { ...(process.env as Record<string, string>), VIGIL_API_KEY: org.apiKey, PROJECT_ID: project.id, ALERT_ID: alert.id };
  });
  afterAll(() => t.close());

  it('every curl example answers data without errors', async () => {
    const examples = await blocks('sh');
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const example of examples) {
      const { stdout } = await run('bash', ['-c', example.replaceAll(docsUrl, t.baseUrl)], { env });
      const body = JSON.parse(stdout) as { data?: Record<string, unknown>; errors?: unknown[] };
      expect(body.errors, example).toBeUndefined();
      expect(Object.keys(body.data ?? {}).length, example).toBeGreaterThan(0);
    }
  });

  it('the graphql-ws snippet receives an alert created afterwards', async () => {
    const [snippet] = await blocks('js');
    const file = path.join(repoRoot, 'packages/server', `docs-snippet-${process.pid}.mjs`);
    // Node 20 has no global WebSocket (browsers do): the ws package stands in for it.
    const program = `import WebSocket from 'ws';\nglobalThis.WebSocket = WebSocket;\n${snippet
      .replace(docsUrl.replace('http', 'ws'), t.baseUrl.replace('http', 'ws'))
      .replace('svc_live_YOUR_KEY', org.apiKey)}`;
    await writeFile(file, program);
    const child = spawn(process.execPath, [file], { cwd: path.dirname(file) });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    try {
      await waitFor(() => t.app.events!.subscriberCount(org.orgId, 'alert.created'), (n) => n === 1, 'the snippet to subscribe');
      const project = await createProject(t, org, 'Snippet');
      await createAlert(t, org, { projectId: project.id, title: 'Seen by the snippet', severity: 'high' });
      await waitFor(() => output, (text) => text.includes('alert '), 'the snippet to print the alert');
      expect(JSON.parse(output.slice(output.indexOf('alert ') + 6).split('\n')[0])).toEqual({
        id: expect.stringMatching(/^alrt_/),
        title: 'Seen by the snippet',
        severity: 'HIGH',
        project: { name: 'Snippet' },
      });
    } finally {
      child.kill();
      await rm(file, { force: true });
    }
  });
});
