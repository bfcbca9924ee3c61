// The subscription snippet of docs/graphql.md receives a real alert; its curl examples run in docs-examples.test.ts.
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { docsExample } from './support/docs-examples.js';
import { repoRoot } from './support/processes.js';
import { createAlert, createProject } from './support/resources.js';
import { waitFor } from './support/webhooks/wait.js';

const docsUrl = 'http://127.0.0.1:3000';

describe('docs/graphql.md examples, run as written', () => {
  let t: TestApp;
  let org: TestOrg;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const project = await createProject(t, org, 'Docs');
    await createAlert(t, org, { projectId: project.id, title: 'Disk full', severity: 'critical' });
    env = { ...(process.env as Record<string, string>), VIGIL_API_KEY: org.apiKey };
  });
  afterAll(() => t.close());

  it('the graphql-ws snippet receives an alert created afterwards', async () => {
    // As written, on Node 20 (no global WebSocket): only the address is this server's.
    const program = docsExample('subscription', 'graphql.md').replace(docsUrl.replace('http', 'ws'), t.baseUrl.replace('http', 'ws'));
    const file = path.join(repoRoot, 'packages/server', `docs-snippet-${process.pid}.mjs`);
    await writeFile(file, program);
    const child = spawn(process.execPath, [file], { cwd: path.dirname(file), env });
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
