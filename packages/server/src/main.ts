import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from './config.js';
import { standardOutputWritten, writeAfterLogLines } from './platform/log-output.js';

export async function serve(): Promise<void> {
  const config = loadConfig();
  // Imported here so that the `vigil` command can load this file without loading the whole server.
  const { startServer } = await import('./server.js');
  const server = await startServer(config);
  const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  await standardOutputWritten();
  process.stdout.write(
    [
      config.role === 'worker'
        ? `Vigil worker running (webhook deliveries, data jobs); health checks at ${server.url}/healthz`
        : `Vigil is listening on ${server.url} (REST API at ${server.url}/api/v1, reference at ${server.url}/docs)`,
      `Database: ${database}`,
      ...(server.hasOrganizations
        ? []
        : [`Create your first organization and API key with:`, `  npx vigil org create --name "Acme" --plan business --admin-email you@example.com`]),
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    writeAfterLogLines(`${signal} received: finishing in-flight requests\n`);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`vigil: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

export function exitOnStartupError(error: unknown): never {
  const message = error instanceof ConfigError ? `invalid configuration: ${error.message}` : error instanceof Error ? error.message : String(error);
  process.stderr.write(`vigil: ${message}\n`);
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serve().catch(exitOnStartupError);
}
