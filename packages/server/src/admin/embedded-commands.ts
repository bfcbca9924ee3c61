import path from 'node:path';
import type { Config } from '../config.js';
import { connectDb } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { backupEmbedded, restoreEmbedded } from './embedded-backup.js';
import { requireEmbeddedAtRest } from './embedded-at-rest.js';
import { markMovedToPostgres } from './moved-to-postgres.js';
import { type CopiedTable, copyEmbeddedToPostgres } from './migrate-to-postgres.js';
import type { EmbeddedCommand } from './embedded-command-kinds.js';

export interface EmbeddedOutcome {
  /** What `--json` prints. */
  result: Record<string, unknown>;
  /** What a person reads. */
  text: string;
}

/** The URL to show: its password replaced, since the output may end up in a terminal log. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '****';
  return parsed.toString();
}

function copyReport(dataDir: string, target: string, tables: CopiedTable[], secretKeyFile: string | undefined): string {
  const width = Math.max(...tables.map((table) => table.name.length));
  return [
    `Copied the embedded database in ${dataDir} into ${target}; every table has the same number of rows on both sides:`,
    ...tables.map((table) => `  ${table.name.padEnd(width)}  ${table.rows}`),
    'Next: start Vigil on PostgreSQL with the settings below (a start on the embedded files now refuses, unless VIGIL_IGNORE_MOVED_TO_POSTGRES=true)',
    `  DATABASE_URL=${target}   (the URL given to --to, with its password)`,
    secretKeyFile
      ? `  VIGIL_SECRET_KEY="$(cat ${secretKeyFile})"   (the same key: it unseals the stored credentials and webhook secrets)`
      : '  VIGIL_SECRET_KEY set as it is now',
    `Finished exports' files stay in ${path.join(dataDir, 'exports')}: keep VIGIL_DATA_DIR=${dataDir} so their downloads keep working.`,
  ].join('\n');
}

/** Commands on the embedded installation's files themselves: never handed to a running server. */
export async function runEmbeddedCommand(config: Config, command: EmbeddedCommand): Promise<EmbeddedOutcome> {
  if (config.databaseUrl) {
    throw new Error(`DATABASE_URL is set, but vigil ${command.kind} works on an embedded installation (VIGIL_DATA_DIR); unset DATABASE_URL`);
  }
  const { dataDir } = config;
  switch (command.kind) {
    case 'backup': {
      const backup = await backupEmbedded(dataDir, command.out);
      const key = backup.includesKey ? 'with the secret key: keep it as private as the data' : 'without a secret key (VIGIL_SECRET_KEY is set outside the data directory: keep it too)';
      return { result: backup, text: `Wrote ${backup.file} (${backup.bytes} bytes), a consistent copy of ${dataDir}, ${key}.` };
    }
    case 'restore': {
      const restored = await restoreEmbedded(dataDir, command.from);
      return { result: { dataDir, ...restored }, text: `Restored ${command.from} into ${dataDir}; start Vigil with VIGIL_DATA_DIR=${dataDir}.` };
    }
    case 'migrate-to-postgres': {
      await requireEmbeddedAtRest(dataDir, 'the copy');
      const source = await connectDb({ dataDir });
      try {
        // The copy's target is made by this version's migrations: the source is brought up to them first.
        await migrate(source);
        const tables = await copyEmbeddedToPostgres(source, command.to);
        const target = withoutPassword(command.to);
        await markMovedToPostgres(dataDir, target, new Date());
        const secretKeyFile = config.secretKey ? undefined : path.join(dataDir, 'secret.key');
        return { result: { target, tables, secretKeyFile: secretKeyFile ?? null }, text: copyReport(dataDir, target, tables, secretKeyFile) };
      } finally {
        await source.close();
      }
    }
  }
}
