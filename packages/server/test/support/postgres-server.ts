import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed from Debian's packages, if any. */
function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(path.join(root, version, 'bin/pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

export const postgresBinDir = findBinDir();

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user. */
const asRoot = process.getuid?.() === 0;


export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  start(): Promise<void>;
  /** A fast shutdown: sessions are ended, as in a restart by an operator or a failover. */
  stop(): Promise<void>;
  /** Stops every process of the server (SIGSTOP): it holds its sockets and answers nothing. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Stops the server and removes its files. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, on a free port), so a
 * test can stop, restart and freeze a real server without touching the shared one on 5432.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  if (!postgresBinDir) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pg-'));
  const dataDir = path.join(dir, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const pgTool = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(postgresBinDir!, tool), ...args]) : run(path.join(postgresBinDir!, tool), args);
  const port = await freePort();
  await pgTool('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off`;
  const start = async () => {
    await pgTool('pg_ctl', ['-D', dataDir, '-o', serverOptions, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  };
  const stop = async () => {
    await pgTool('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  };
  /**
   * The postmaster, then every backend and helper process it started. The postmaster is signalled
   * before its children are listed: stopped, it forks no backend the list would miss (a connection
   * the pool or the listener opens meanwhile), and a child gone since the list is no error.
   */
  const signalAll = async (signal: NodeJS.Signals) => {
    const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(postmaster, signal);
    const { stdout } = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
    for (const pid of stdout.split('\n').filter(Boolean).map(Number)) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    async remove() {
      await signalAll('SIGCONT').catch(() => undefined);
      await stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
