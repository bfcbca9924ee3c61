import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runRestBench } from './rest.js';
import { describeMachine } from './support/machine.js';
import { repoRoot } from './support/processes.js';

const usage = `usage: npm run bench -- [rest] [webhooks] [ingest] [client] [graphql] [scale-out] [console] [--pglite] [--duration SECONDS] [--profile DIR] [--out FILE]
  no part named: all parts; the REST part on PostgreSQL (DATABASE_URL, else the local vigil_bench database)`;

type Part = 'rest' | 'webhooks' | 'ingest' | 'client' | 'graphql' | 'scale-out' | 'console';

const parts: Part[] = ['rest', 'webhooks', 'ingest', 'client', 'graphql', 'scale-out', 'console'];

/** The other parts are optional modules: a part whose file is not there is reported as missing. */
const optionalParts: Record<Exclude<Part, 'rest'>, { file: string; run: (module: Record<string, unknown>) => Promise<string> }> = {
  webhooks: { file: 'webhooks.ts', run: (module) => (module.runWebhookBench as () => Promise<string>)() },
  ingest: { file: 'ingest.ts', run: (module) => (module.runIngestBench as () => Promise<string>)() },
  client: { file: 'client.ts', run: (module) => (module.runClientBench as () => Promise<string>)() },
  graphql: { file: 'graphql.ts', run: (module) => (module.runGraphqlBench as () => Promise<string>)() },
  'scale-out': { file: 'scale-out.ts', run: (module) => (module.runScaleOutBench as () => Promise<string>)() },
  console: { file: 'console.ts', run: (module) => (module.runConsoleBench as () => Promise<string>)() },
};

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      pglite: { type: 'boolean', default: false },
      duration: { type: 'string' },
      profile: { type: 'string' },
      out: { type: 'string', default: 'bench/last-run.md' },
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
    rest: { pglite: values.pglite, durationSeconds, profileDir: values.profile && path.resolve(values.profile) },
    out: path.resolve(repoRoot, values.out),
  };
}

async function runPart(part: Part, options: ReturnType<typeof parse>): Promise<string> {
  if (part === 'rest') return runRestBench(options.rest);
  const { file, run } = optionalParts[part];
  const modulePath = path.join(repoRoot, 'bench', file);
  if (!existsSync(modulePath)) return `### ${part}\n\nNot run: bench/${file} does not exist yet.`;
  return run((await import(modulePath)) as Record<string, unknown>);
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const sections = [`## Run of ${new Date().toISOString().slice(0, 10)}`, '', describeMachine()];
  for (const part of options.selected) {
    const section = await runPart(part, options).catch((error: unknown) => {
      process.exitCode = 1;
      return `### ${part}\n\nFailed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    });
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
