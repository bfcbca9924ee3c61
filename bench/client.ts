// What a round trip costs through @vigil/client against a bare fetch of the same request, to the
// same server, in the same process and run. `npm run bench -- client`.
import { performance } from 'node:perf_hooks';
import { Vigil } from '../packages/client/src/index.js';
import { startTestApp } from '../packages/server/test/support/app.js';
import { type BenchMode, fullRun, sized } from './support/mode.js';

interface Rounds {
  rounds: number;
  callsPerRound: number;
  warmUpCalls: number;
}

interface Case {
  name: string;
  raw: () => Promise<unknown>;
  client: () => Promise<unknown>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

async function answered(response: Response): Promise<unknown> {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: unknown }).data;
}

/**
 * Sequential calls, raw and client alternating in short rounds so that drift in the machine's load
 * hits both alike: with rounds of 200 calls, the same client call measured as both sides came out up
 * to 9 % apart; with rounds of 10, within 2 %.
 */
async function measure(one: Case, { rounds, callsPerRound, warmUpCalls }: Rounds): Promise<{ raw: number[]; client: number[] }> {
  const times = { raw: [] as number[], client: [] as number[] };
  for (let warm = 0; warm < warmUpCalls; warm++) {
    await one.raw();
    await one.client();
  }
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? (['raw', 'client'] as const) : (['client', 'raw'] as const)) {
      for (let call = 0; call < callsPerRound; call++) {
        const started = performance.now();
        await one[side]();
        times[side].push(performance.now() - started);
      }
    }
  }
  return { raw: times.raw.sort((a, b) => a - b), client: times.client.sort((a, b) => a - b) };
}

export async function runClientBench(mode: BenchMode = fullRun): Promise<string> {
  const size = sized<Rounds>(mode, { rounds: 200, callsPerRound: 10, warmUpCalls: 200 }, { rounds: 2, callsPerRound: 5, warmUpCalls: 2 });
  const { rounds, callsPerRound } = size;
  const t = await startTestApp('pglite');
  try {
    const org = await t.createOrg('enterprise', { rateLimitPerMinute: 1_000_000 });
    const baseUrl = `${t.baseUrl}/api/v1`;
    const vigil = new Vigil({ apiKey: org.apiKey, baseUrl });
    const project = await vigil.projects.create({ name: 'Bench' });
    const alert = await vigil.alerts.create({ title: 'Bench', severity: 'low', projectId: project.id });
    const headers = { authorization: `Bearer ${org.apiKey}`, accept: 'application/json' };
    const createBody = JSON.stringify({ title: 'Bench', severity: 'low', projectId: project.id });
    const rawPost = (withKey: boolean) => async () => {
      const response = await fetch(`${baseUrl}/alerts`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', ...(withKey ? { 'idempotency-key': crypto.randomUUID() } : {}) },
        body: createBody,
      });
      return answered(response);
    };
    const cases: Case[] = [
      {
        name: 'GET /alerts/{id} (retrieve)',
        raw: async () => answered(await fetch(`${baseUrl}/alerts/${alert.id}`, { headers })),
        client: () => vigil.alerts.retrieve(alert.id),
      },
      {
        name: 'POST /alerts, raw without an Idempotency-Key',
        raw: rawPost(false),
        client: () => vigil.alerts.create({ title: 'Bench', severity: 'low', projectId: project.id }),
      },
      {
        name: 'POST /alerts, raw with an Idempotency-Key',
        raw: rawPost(true),
        client: () => vigil.alerts.create({ title: 'Bench', severity: 'low', projectId: project.id }),
      },
    ];
    const lines = [
      '### client',
      '',
      `Vigil in-process on PGlite; ${rounds} rounds × ${callsPerRound} sequential calls per side and case, raw fetch and client alternating.`,
      '',
      '| case | raw fetch median ms | client median ms | ratio | raw p99 ms | client p99 ms |',
      '|---|---|---|---|---|---|',
    ];
    for (const one of cases) {
      const { raw, client } = await measure(one, size);
      const [rawMedian, clientMedian] = [percentile(raw, 50), percentile(client, 50)];
      lines.push(
        `| ${one.name} | ${rawMedian.toFixed(3)} | ${clientMedian.toFixed(3)} | ${(clientMedian / rawMedian).toFixed(2)} | ${percentile(raw, 99).toFixed(3)} | ${percentile(client, 99).toFixed(3)} |`,
      );
    }
    return lines.join('\n');
  } finally {
    await t.close();
  }
}
