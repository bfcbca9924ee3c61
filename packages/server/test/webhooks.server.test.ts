import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, runCliJson, type ServerProcess, startServerProcess, tempDataDir } from './support/processes.js';
import { Receiver } from './support/webhooks/receiver.js';
import { serviceSignatureValid } from './support/webhooks/signatures.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

describe('webhooks in a server started as `npm start` runs it (embedded database, role all)', () => {
  let receiver: Receiver;
  let server: ServerProcess;
  let data: { dir: string; remove(): Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    receiver = await Receiver.start();
    data = await tempDataDir({ migrated: true });
    env = { VIGIL_DATA_DIR: data.dir, VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: testTls().caFile };
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await receiver.close();
    await data.remove();
  });

  it('warns that private targets are allowed, delivers API and CLI events signed, and exits 0 on SIGTERM', async () => {
    expect(server.output.stdout).toMatch(/VIGIL_WEBHOOK_ALLOW_PRIVATE is on/);
    const created = await runCliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'Acme', '--plan', 'business'], env);
    const hook = await call(server.url, 'POST', 'webhooks', {
      apiKey: created.apiKey,
      body: { name: 'all', url: receiver.url('/server'), events: ['project.created', 'billing.subscription_activated', 'billing.trial_expired'] },
    });
    expect(hook.status).toBe(201);
    const secret = (hook.body.data as { secret: string }).secret;

    await call(server.url, 'POST', 'projects', { apiKey: created.apiKey, body: { name: 'Shop' } });
    await runCliJson(['org', 'set-plan', created.org.id, 'enterprise'], env);
    await runCliJson(['billing', 'trial-expired', created.org.id], env);

    const received = await waitFor(() => receiver.received('/server'), (requests) => requests.length === 3, 'three deliveries');
    expect(received.map((request) => request.headers['x-service-event']).sort()).toEqual([
      'billing.subscription_activated',
      'billing.trial_expired',
      'project.created',
    ]);
    expect(received.every((request) => serviceSignatureValid(secret, request.headers, request.body))).toBe(true);

    const stopped = await server.stop('SIGTERM');
    expect(stopped.code).toBe(0);
  });
});
