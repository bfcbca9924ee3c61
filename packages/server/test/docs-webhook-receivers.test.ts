// The Node and Python receivers of docs/webhooks.md, run as written against a real Vigil webhook:
// they accept real deliveries before and after a secret rotation, and refuse forged or hostile
// headers with a 401 without crashing.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.js';
import { serviceSignature, standardSignature } from '../src/webhooks/signer.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { docsExample } from './support/docs-examples.js';
import { runMain } from './support/processes.js';
import { waitFor } from './support/webhooks/wait.js';

interface Delivery {
  id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: { httpStatus: number | null; error: string | null }[];
  payload: { data: { id: string } };
}

const receivers = [
  { name: 'node-receiver', file: 'receiver.mjs', program: process.execPath },
  { name: 'python-receiver', file: 'receiver.py', program: '/usr/bin/python3' },
];

/** One raw HTTP/1.1 POST with exactly these header bytes (fetch would refuse some of them); the status code it got. */
function rawPost(port: number, headerLines: Buffer[], body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const head = Buffer.concat([
      Buffer.from(`POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`),
      ...headerLines.map((line) => Buffer.concat([line, Buffer.from('\r\n')])),
      Buffer.from('\r\n'),
    ]);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (status) resolve(Number(status[1]));
      else reject(new Error(`no HTTP answer: ${JSON.stringify(answer)}`));
    });
    socket.end(Buffer.concat([head, Buffer.from(body)]));
  });
}

let t: TestApp;
let org: TestOrg;
let worker: DeliveryWorker;
let projectId: string;

// One app and one delivery worker for both receivers.
beforeAll(async () => {
  t = await startTestApp('pglite', { config: { webhookAllowPrivate: true } });
  org = await t.createOrg('business');
  worker = await DeliveryWorker.start({
    db: t.database.db,
    clock: systemClock,
    config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 3_600_000, 3_600_000, 3_600_000, 3_600_000], webhookAllowPrivate: true },
    pollIntervalMs: 50,
  });
  projectId = (await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Shop' } })).body.data.id;
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

describe.each(receivers)('docs/webhooks.md $name, run as written', ({ name, file, program }) => {
  let dir: string;
  let webhookId: string;
  let firstSecret: string;
  let receiverSecret: string;
  let receiver: { port: number; output: { stdout: string; stderr: string }; stop(): Promise<void> };

  const startReceiver = async (secret: string) => {
    receiverSecret = secret;
    const { child, done, output } = runMain({ VIGIL_WEBHOOK_SECRET: secret, PORT: '0' }, [program, path.join(dir, file)]);
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    await waitFor(
      () => output.stdout,
      (stdout) => /listening on \d+/.test(stdout) || exited(),
      `${name} to listen`,
    );
    if (exited()) throw new Error(`${name} exited: ${output.stderr}`);
    return {
      port: Number(/listening on (\d+)/.exec(output.stdout)![1]),
      output,
      async stop() {
        child.kill();
        await done;
      },
    };
  };

  /** Raises an alert and waits for its delivery to be recorded; the delivery with its attempts. */
  const deliverAlert = async (title: string) => {
    const alert = await t.request<{ data: { id: string } }>('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, title, severity: 'low' } });
    expect(alert.status).toBe(201);
    const delivery = await waitFor(
      async () =>
        (await t.request<{ data: Delivery[] }>('GET', `webhooks/${webhookId}/deliveries`, { apiKey: org.apiKey })).body.data.find(
          (item) => item.payload.data.id === alert.body.data.id && item.attempts.length > 0,
        ),
      (found) => found !== undefined,
      `the delivery of ${title}`,
    );
    return { alertId: alert.body.data.id, delivery: delivery! };
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-docs-receiver-'));
    await writeFile(path.join(dir, file), docsExample(name, 'webhooks.md'));
    // The secret exists once the webhook does, and the receiver needs it to start: point the webhook at it afterwards.
    const created = await t.request<{ data: { id: string; secret: string } }>('POST', 'webhooks', {
      apiKey: org.apiKey,
      body: { name: `Docs ${name}`, url: 'http://127.0.0.1:9/', events: ['alert.created'] },
    });
    expect(created.status).toBe(201);
    webhookId = created.body.data.id;
    firstSecret = created.body.data.secret;
    receiver = await startReceiver(firstSecret);
    const pointed = await t.request('PATCH', `webhooks/${webhookId}`, { apiKey: org.apiKey, body: { url: `http://127.0.0.1:${receiver.port}/hook` } });
    expect(pointed.status).toBe(200);
  });
  afterAll(async () => {
    await receiver?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts real deliveries before and after rotate-secret, with the old secret and then the new one', async () => {
    const before = await deliverAlert('Before rotation');
    expect(before.delivery.attempts[0]).toMatchObject({ httpStatus: 204, error: null });
    expect(before.delivery.status).toBe('delivered');
    expect(receiver.output.stdout).toContain(`alert.created ${before.alertId}`);

    const rotated = await t.request<{ data: { secret: string } }>('POST', `webhooks/${webhookId}/rotate-secret`, { apiKey: org.apiKey });
    expect(rotated.status).toBe(200);
    const withOldSecret = await deliverAlert('Right after rotation');
    expect(withOldSecret.delivery.attempts[0]).toMatchObject({ httpStatus: 204, error: null });
    expect(receiver.output.stdout).toContain(`alert.created ${withOldSecret.alertId}`);

    await receiver.stop();
    receiver = await startReceiver(rotated.body.data.secret);
    await t.request('PATCH', `webhooks/${webhookId}`, { apiKey: org.apiKey, body: { url: `http://127.0.0.1:${receiver.port}/hook` } });
    const withNewSecret = await deliverAlert('Receiver on the new secret');
    expect(withNewSecret.delivery.attempts[0]).toMatchObject({ httpStatus: 204, error: null });
    expect(receiver.output.stdout).toContain(`alert.created ${withNewSecret.alertId}`);
  });

  it('refuses forged, stale and hostile headers with a 401, keeps running, and falls back to X-Service-Signature only without the standard headers', async () => {
    const secret = receiverSecret;
    const body = JSON.stringify({ event: 'alert.created', orgId: org.orgId, timestamp: new Date().toISOString(), data: { id: 'alrt_forged' } });
    const now = Math.floor(Date.now() / 1000);
    const line = (text: string) => Buffer.from(text, 'latin1');
    const standard = (id: string, timestamp: number, signature: string) => [line(`webhook-id: ${id}`), line(`webhook-timestamp: ${timestamp}`), line(`webhook-signature: ${signature}`)];
    const valid = standardSignature(secret, 'msg_valid', now, body);

    const hostile: [string, Buffer[]][] = [
      ['no signature at all', []],
      ['a non-ASCII byte in webhook-signature', [line('webhook-id: msg_a'), line(`webhook-timestamp: ${now}`), Buffer.concat([line('webhook-signature: v1,'), Buffer.from([0xff, 0xfe]), line('abc')])]],
      [
        'a non-ASCII byte in a signature as long as a real one (44 characters, 45 bytes)',
        [line('webhook-id: msg_h'), line(`webhook-timestamp: ${now}`), Buffer.concat([line(`webhook-signature: v1,${'A'.repeat(43)}`), Buffer.from([0xe9])])],
      ],
      ['a signature of another length', standard('msg_b', now, 'v1,c2hvcnQ=')],
      ['a forged signature of the right length', standard('msg_c', now, `v1,${Buffer.alloc(32, 7).toString('base64')}`)],
      ['a valid signature without its v1, prefix', standard('msg_valid', now, valid.slice(3))],
      ['a stale timestamp, correctly signed', standard('msg_d', now - 600, standardSignature(secret, 'msg_d', now - 600, body))],
      ['a timestamp from the future, correctly signed', standard('msg_e', now + 600, standardSignature(secret, 'msg_e', now + 600, body))],
      ['a timestamp that is not a number', standard('msg_f', now, valid).map((header, i) => (i === 1 ? line('webhook-timestamp: 1e9') : header))],
      [
        'a valid X-Service-Signature beside a forged webhook-signature',
        [...standard('msg_g', now, `v1,${Buffer.alloc(32).toString('base64')}`), line(`X-Service-Signature: ${serviceSignature(secret, body)}`)],
      ],
      ['an X-Service-Signature with a non-ASCII byte', [Buffer.concat([line('X-Service-Signature: sha256='), Buffer.from([0xc3, 0x28, 0xff])])]],
      ['an X-Service-Signature of the old secret', [line(`X-Service-Signature: ${serviceSignature(firstSecret, body)}`)]],
    ];
    for (const [what, headers] of hostile) {
      expect({ what, status: await rawPost(receiver.port, headers, body) }).toEqual({ what, status: 401 });
    }
    expect(receiver.output.stdout).not.toContain('alrt_forged');

    expect(await rawPost(receiver.port, standard('msg_valid', now, `v1,bm90IGl0 ${valid}`), body)).toBe(204);
    expect(await rawPost(receiver.port, standard('msg_valid', now, valid), body)).toBe(200);
    const legacyOnly = JSON.stringify({ event: 'alert.created', orgId: org.orgId, timestamp: new Date().toISOString(), data: { id: 'alrt_legacy' } });
    expect(await rawPost(receiver.port, [line('X-Service-Delivery: dlv_legacy'), line(`X-Service-Signature: ${serviceSignature(secret, legacyOnly)}`)], legacyOnly)).toBe(204);
    expect(receiver.output.stdout).toContain('alert.created alrt_legacy');

    const after = await deliverAlert('After the hostile requests');
    expect(after.delivery.attempts[0]).toMatchObject({ httpStatus: 204, error: null });
  });
});
