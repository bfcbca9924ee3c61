import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from '../packages/server/launch/build.js';
import { runAlertDedupBench } from './alert-dedup.js';
import { runClientBench } from './client.js';
import { runConsoleBench } from './console.js';
import { runGraphqlBench } from './graphql.js';
import { runIngestBench } from './ingest.js';
import { runRestBench } from './rest.js';
import { runScaleOutBench } from './scale-out.js';
import { describeMachine } from './support/machine.js';
import type { BenchMode } from './support/mode.js';
import { repoRoot } from './support/processes.js';
import { runWebhookBench } from './webhooks.js';

const usage = `usage: npm run bench -- [rest] [webhooks] [ingest] [client] [graphql] [scale-out] [console] [--smoke] [--pglite] [--duration SECONDS] [--profile DIR] [--out FILE]
  no part named: all parts; the REST part on PostgreSQL (DATABASE_URL, else the local vigil_bench database)
  --smoke: every step of each part one short round; fails when a part crashes or a correctness check fails, never on a timing`;

type Part = 'rest' | 'webhooks' | 'ingest' | 'client' | 'graphql' | 'scale-out' | 'console';

const parts: Part[] = ['rest', 'webhooks', 'ingest', 'client', 'graphql', 'scale-out', 'console'];

const otherParts: Record<Exclude<Part, 'rest'>, (mode: BenchMode) => Promise<string>> = {
  webhooks: runWebhookBench,
  ingest: runIngestBench,
  client: runClientBench,
  graphql: runGraphqlBench,
  'scale-out': runScaleOutBench,
  console: runConsoleBench,
};

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      pglite: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      duration: { type: 'string' },
      profile: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const unknown = positionals.filter((part) => !parts.includes(part as Part));
  if (values.help || unknown.length > 0) throw new Error(unknown.length ? `unknown part ${unknown.join(', ')}\n${usage}` : usage);
  const durationSeconds = values.duration === undefined ? undefined : Number(values.duration);
  if (durationSeconds !== undefined && !(Number.isInteger(durationSeconds) && durationSeconds > 0)) {
    throw new Error(`--duration must be a whole number of seconds, got "${values.duration}"`);
  }
  return {
    selected: positionals.length ? parts.filter((part) => positionals.includes(part)) : parts,
    mode: { smoke: values.smoke },
    rest: { pglite: values.pglite, durationSeconds, profileDir: values.profile && path.resolve(values.profile), smoke: values.smoke },
    out: path.resolve(repoRoot, values.out ?? (values.smoke ? 'bench/last-smoke.md' : 'bench/last-run.md')),
  };
}

async function runPart(part: Part, options: ReturnType<typeof parse>): Promise<string> {
  if (part === 'rest') {
    const dedupOptions = options.rest.smoke ? { ...options.rest, durationSeconds: 1 } : options.rest;
    return `${await runRestBench(options.rest)}\n\n${await runAlertDedupBench(dedupOptions)}`;
  }
  return otherParts[part](options.mode);
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  if (await buildServer()) process.stderr.write('bench: packages/server/dist built from the sources as they are\n');
  const sections = [`## Run of ${new Date().toISOString().slice(0, 10)}`, '', describeMachine()];
  for (const part of options.selected) {
    const started = performance.now();
    const section = await runPart(part, options).catch((error: unknown) => {
      process.exitCode = 1;
      return `### ${part}\n\nFailed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    });
    process.stderr.write(`bench: ${part} took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    sections.push('', section);
  }
  const report = `${sections.join('\n')}\n`;
  await writeFile(options.out, report);
  process.stdout.write(`${report}\n(written to ${path.relative(repoRoot, options.out)})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
