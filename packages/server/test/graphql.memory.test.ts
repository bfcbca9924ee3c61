import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSocket } from './support/graphql.js';
import { childSecretKey, runCliJson, type ServerProcess, startServerProcess, tempDataDir } from './support/processes.js';
import { waitFor } from './support/webhooks/wait.js';

const mebibyte = 1024 * 1024;

async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Child processes start slowly on a loaded machine: more than the default hook timeout. */
const startupTimeoutMs = 240_000;

describe.runIf(process.platform === 'linux')('GraphQL subscription memory, in a server process of its own', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let server: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    data = await tempDataDir({ migrated: true });
    const env = { VIGIL_DATA_DIR: data.dir, VIGIL_SECRET_KEY: childSecretKey };
    server = await startServerProcess(env);
    ({ apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Flood', '--plan', 'business'], env));
   }, startupTimeoutMs);
  afterAll(async () => {
    await server.stop();
    await data.remove();
  });

  it('takes 100 of 2,000 subscribes sent on one socket, and returns to its memory once the socket closes', async () => {
    // One socket opened and closed first, so that what the first one costs (code loaded, caches) is in the baseline.
    const warmUp = rawSocket(server.url, { authorization: `Bearer ${apiKey}` });
    expect(await warmUp.accepted).toBe('ack');
    warmUp.subscribe('1', 'subscription { alertCreated { id title project { name } } }');
    warmUp.socket.close();
    await warmUp.closed;
    const before = await residentBytes(server.child.pid!);

    const flood = rawSocket(server.url, { authorization: `Bearer ${apiKey}` });
    expect(await flood.accepted).toBe('ack');
    for (let i = 0; i < 2_000; i++) flood.subscribe(String(i), `subscription { alertCreated(projectId: "proj_${i}") { id title project { name } } }`);
    const refused = await waitFor(() => flood.messages.filter((message) => message.type === 'error'), (errors) => errors.length >= 1_900, '1,900 refusals');
    expect(refused).toHaveLength(1_900);
    expect(refused.every((message) => (message.payload as { extensions: { code: string } }[])[0].extensions.code === 'RATE_LIMITED')).toBe(true);
    flood.socket.close();
    await flood.closed;

    const after = await waitFor(() => residentBytes(server.child.pid!), (bytes) => bytes - before < 50 * mebibyte, 'the memory to return');
    expect((after - before) / mebibyte).toBeLessThan(50);
    // Still serving: a new socket is accepted.
    const next = rawSocket(server.url, { authorization: `Bearer ${apiKey}` });
    expect(await next.accepted).toBe('ack');
    next.socket.close();
  });
});
