import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { type AdminCommand, type AdminResult, runAdminCommand } from './admin/commands.js';
import { type EmbeddedCommand, embeddedCommandNames, isEmbeddedCommand } from './admin/embedded-command-kinds.js';
import { sendToRunningServer } from './admin/socket.js';
import { loadConfig } from './config.js';
import { exitOnStartupError, serve } from './main.js';
import type { ApiKey } from './modules/api-keys/schema.js';
import type { Organization } from './modules/organizations/store.js';
import { isPlan, type Plan, plans } from './platform/plans.js';

class UsageError extends Error {}

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const usage = `usage:
  vigil serve
  vigil --version
  vigil migrate
  vigil org create --name NAME --plan PLAN [--admin-email EMAIL] [--json]
  vigil org set-plan ORG_ID PLAN [--json]
  vigil org set-rate-limit ORG_ID N [--json]
  vigil org list [--json]
  vigil key create --org ORG_ID [--name NAME] [--expires-in 45s|30m|12h|90d] [--json]
  vigil key list --org ORG_ID [--json]
  vigil key revoke KEY_ID [--json]
  vigil billing trial-expired ORG_ID [--json]
  vigil billing payment-failed ORG_ID [--reason TEXT] [--json]
  vigil user reset-link EMAIL [--org ORG_ID] [--json]
  vigil migrate-to-postgres --to POSTGRES_URL [--json]
  vigil backup --out FILE [--json]
  vigil restore --from FILE [--json]
plans: ${plans.join(' ')}`;

function plan(value: string | undefined): Plan {
  if (value === undefined || !isPlan(value)) throw new UsageError(`plan must be one of ${plans.join(', ')}, got "${value ?? ''}"`);
  return value;
}

const durationUnits: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const longestDurationMs = 36_500 * durationUnits.d;

/** `--expires-in`: a whole number of seconds, minutes, hours or days (`45s`, `30m`, `12h`, `90d`), at most 100 years. */
function duration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * durationUnits[match[2]] : 0;
  if (ms === 0 || ms > longestDurationMs) {
    throw new UsageError(`--expires-in must be a whole number of seconds, minutes, hours or days such as 45s, 30m, 12h or 90d (at most 36500d), got "${value}"`);
  }
  return ms;
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${what} is required`);
  return value;
}

function postgresUrl(value: string | undefined): string {
  const given = required(value, '--to');
  if (!/^postgres(ql)?:\/\/./.test(given)) throw new UsageError('--to must be a PostgreSQL URL such as postgres://user:password@host:5432/vigil');
  return given;
}

function parse(argv: string[]): { command: AdminCommand | EmbeddedCommand | 'serve'; json: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'admin-email': { type: 'string' },
      org: { type: 'string' },
      reason: { type: 'string' },
      'expires-in': { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [group, action, first, second, ...rest] = positionals;
  const json = values.json ?? false;
  const words = group === 'serve' || group === 'migrate' || embeddedCommandNames.has(group) ? group : [group, action].filter(Boolean).join(' ');
  const expectArguments = (count: number) => {
    const given = positionals.length - (action === undefined ? 1 : 2);
    if (given !== count || rest.length > 0) throw new UsageError(`"${words}" takes ${count} argument${count === 1 ? '' : 's'}`);
  };
  switch (words) {
    case 'serve':
    case 'migrate':
      if (positionals.length !== 1) throw new UsageError(`"${group}" takes no arguments`);
      return { command: group === 'serve' ? 'serve' : { kind: 'migrate' }, json };
    case 'migrate-to-postgres':
    case 'backup':
    case 'restore':
      if (positionals.length !== 1) throw new UsageError(`"${group}" takes no arguments`);
      if (group === 'backup') return { command: { kind: 'backup', out: required(values.out, '--out') }, json };
      if (group === 'restore') return { command: { kind: 'restore', from: required(values.from, '--from') }, json };
      return { command: { kind: 'migrate-to-postgres', to: postgresUrl(values.to) }, json };
    case 'org create':
      expectArguments(0);
      return {
        command: { kind: 'org.create', name: required(values.name, '--name'), plan: plan(values.plan), adminEmail: values['admin-email'] },
        json,
      };
    case 'org set-plan':
      expectArguments(2);
      return { command: { kind: 'org.set-plan', orgId: first, plan: plan(second) }, json };
    case 'org set-rate-limit': {
      expectArguments(2);
      if (!/^\d+$/.test(second)) throw new UsageError(`N must be a whole number of requests per minute, got "${second}"`);
      return { command: { kind: 'org.set-rate-limit', orgId: first, perMinute: Number(second) }, json };
    }
    case 'key create':
      expectArguments(0);
      return {
        command: { kind: 'key.create', orgId: required(values.org, '--org'), name: values.name, expiresInMs: duration(values['expires-in']) },
        json,
      };
    case 'org list':
      expectArguments(0);
      return { command: { kind: 'org.list' }, json };
    case 'key list':
      expectArguments(0);
      return { command: { kind: 'key.list', orgId: required(values.org, '--org') }, json };
    case 'key revoke':
      expectArguments(1);
      return { command: { kind: 'key.revoke', keyId: first }, json };
    case 'billing trial-expired':
      expectArguments(1);
      return { command: { kind: 'billing.trial-expired', orgId: first }, json };
    case 'billing payment-failed':
      expectArguments(1);
      return { command: { kind: 'billing.payment-failed', orgId: first, reason: values.reason }, json };
    case 'user reset-link':
      expectArguments(1);
      return { command: { kind: 'user.reset-link', email: first, orgId: values.org }, json };
    default:
      throw new UsageError(words ? `unknown command "${words}"` : 'no command given');
  }
}

/** Rows as aligned columns for people; `-` for an empty value. */
function table<Row extends object>(rows: Row[], columns: (keyof Row & string)[], empty: string): string {
  if (rows.length === 0) return empty;
  const cells = [columns, ...rows.map((row) => columns.map((column) => String(row[column] ?? '-')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

function describe(command: AdminCommand, result: AdminResult): string {
  switch (command.kind) {
    case 'migrate': {
      const applied = result.applied as string[];
      return applied.length ? `Applied ${applied.join(', ')}` : 'The database is up to date.';
    }
    case 'org.create': {
      const org = result.org as { id: string; name: string; plan: string };
      const created = `Created organization ${org.id} "${org.name}" on ${org.plan}.\nAPI key (shown once, keep it safe): ${String(result.apiKey)}`;
      return result.inviteUrl ? `${created}\nThe admin sets a password and signs in at (one-time, 7 days): ${String(result.inviteUrl)}` : created;
    }
    case 'key.create':
      return [
        `Created ${String(result.id)}${result.expiresAt ? `, expiring at ${String(result.expiresAt)}` : ''}.`,
        `API key (shown once, keep it safe): ${String(result.apiKey)}`,
      ].join('\n');
    case 'org.list':
      return table(result.data as Organization[], ['id', 'name', 'plan', 'createdAt'], 'No organizations yet: vigil org create --name NAME --plan PLAN');
    case 'key.list':
      return table(result.data as ApiKey[], ['id', 'name', 'prefix', 'createdAt', 'expiresAt', 'lastUsedAt', 'revokedAt'], 'This organization has no keys.');
    case 'key.revoke':
      return `Revoked ${String(result.id)}.`;
    case 'user.reset-link':
      return `One-time link to set a password (7 days; earlier links no longer work): ${String(result.url)}`;
    default:
      return JSON.stringify(result);
  }
}

async function execute(command: AdminCommand): Promise<AdminResult> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    const handled = await sendToRunningServer(config.dataDir, command);
    if (handled) return handled;
  }
  // Loaded only here: a command handed to a running server (or a usage error) needs none of the
  // service modules, which take seconds to load.
  const [{ openRuntime }, { createAdminServices }] = await Promise.all([import('./runtime.js'), import('./admin/services.js')]);
  const runtime = await openRuntime(config, { migrate: command.kind !== 'migrate' });
  try {
    return await runAdminCommand({ db: runtime.db, services: createAdminServices(runtime), grantsChanged: () => undefined }, command);
  } finally {
    await runtime.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--version' || argv[0] === 'version') {
    process.stdout.write(`vigil ${version}\n`);
    return;
  }
  if (argv[0] === 'help' || argv.includes('--help')) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    process.stderr.write(`vigil: ${(error as Error).message} (vigil help lists the commands)\n`);
    process.exit(1);
  }
  if (parsed.command === 'serve') return serve().catch(exitOnStartupError);
  const command = parsed.command;
  if (isEmbeddedCommand(command)) {
    try {
      // Loaded only here: it brings PGlite, pg and tar, which a usage error or another command never needs.
      const { runEmbeddedCommand } = await import('./admin/embedded-commands.js');
      const outcome = await runEmbeddedCommand(loadConfig(), command);
      process.stdout.write(`${parsed.json ? JSON.stringify(outcome.result) : outcome.text}\n`);
    } catch (error) {
      exitOnStartupError(error);
    }
    return;
  }
  try {
    const result = await execute(command);
    process.stdout.write(`${parsed.json ? JSON.stringify(result) : describe(command, result)}\n`);
  } catch (error) {
    exitOnStartupError(error);
  }
}
