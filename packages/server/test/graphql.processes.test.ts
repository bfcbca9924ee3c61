import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { graphql, subscriber } from './support/graphql.js';
import { runCliJson, type ServerProcess, startServerProcess, tempPostgresSchema } from './support/processes.js';
import { Receiver } from './support/webhooks/receiver.js';
import { serviceSignatureValid } from './support/webhooks/signatures.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';
import { needs } from './support/requirements.js';

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('GraphQL across two server processes on PostgreSQL', () => {
  let target: Awaited<ReturnType<typeof tempPostgresSchema>>;
  let a: ServerProcess;
  let b: ServerProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    target = await tempPostgresSchema();
    a = await startServerProcess({ ...target.env, VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: testTls().caFile });
    b = await startServerProcess({ ...target.env, VIGIL_ROLE: 'api' });
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await target.drop();
    await receiver.close();
  });

  it('an alert created over GraphQL on process A reaches a subscriber on process B and its alert.created webhook', async () => {
    const { apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Two', '--plan', 'business'], target.env);
    const gqlA = <T>(query: string, variables?: Record<string, unknown>) => graphql<T>(a.url, apiKey, query, variables);
    const webhook = await gqlA<{ createWebhook: { secret: string } }>(
      'mutation ($url: String!) { createWebhook(input: { name: "Ops", url: $url, events: ["alert.created"] }) { secret } }',
      { url: receiver.url('/gql') },
    );
    const secret = webhook.body.data!.createWebhook.secret;
    const project = await gqlA<{ createProject: { id: string } }>('mutation { createProject(input: { name: "Cross" }) { id } }');
    const projectId = project.body.data!.createProject.id;

    const onB = subscriber(b.url, apiKey);
    const received: { alertCreated: { id: string; title: string } }[] = [];
    onB.client.subscribe<{ alertCreated: { id: string; title: string } }>(
      { query: 'subscription { alertCreated { id title } }' },
      { next: (result) => void (result.data && received.push(result.data)), error: () => undefined, complete: () => undefined },
    );
    // Process B cannot be asked whether the subscription is registered yet: create alerts until one arrives.
    const created: string[] = [];
    await waitFor(
      async () => {
        const alert = await gqlA<{ createAlert: { id: string } }>(
          'mutation ($p: ID!) { createAlert(input: { projectId: $p, title: "From A", severity: HIGH }) { id } }',
          { p: projectId },
        );
        created.push(alert.body.data!.createAlert.id);
        await new Promise((resolve) => setTimeout(resolve, 250));
        return received.length;
      },
      (count) => count > 0,
      'an alert on process B',
    );
    expect(created).toContain(received[0].alertCreated.id);
    expect(received[0].alertCreated.title).toBe('From A');

    const deliveries = await waitFor(() => receiver.received('/gql'), (requests) => requests.length >= created.length, 'the webhooks');
    const first = deliveries.find((request) => JSON.parse(request.body).data.id === created[0])!;
    expect(JSON.parse(first.body)).toMatchObject({ event: 'alert.created', data: { id: created[0], title: 'From A', severity: 'high' } });
    expect(serviceSignatureValid(secret, first.headers, first.body)).toBe(true);
    await onB.client.dispose();
  });
});
