import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { embeddedDirectory } from '../../src/db/connect.js';
import { postgresUrl } from './databases.js';
import { pgliteImage, writePgliteImage } from './pglite-images.js';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const cliScript = path.join(repoRoot, 'packages/server/bin/vigil.js');

export type Env = Record<string, string>;

/** The parent's environment without any Vigil setting, so a child sees only what a test gives it. */
function cleanEnv(env: Env): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PORT|HOST|DATABASE_URL|REDIS_URL|LOG_LEVEL|AI_.*|VIGIL_.*)$/.test(name),
    ),
  );
  return { ...inherited, LOG_LEVEL: 'warn', ...env };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function finished(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, ...output }));
  });
}

function collect(child: ChildProcess): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  return output;
}

/** Runs `vigil ARGS` (what `npx vigil` runs) to completion. */
export function runCli(args: string[], env: Env): Promise<Finished> {
  const child = spawn(process.execPath, [cliScript, ...args], { cwd: repoRoot, env: cleanEnv(env) });
  return finished(child, collect(child));
}

/** `vigil … --json` that must succeed: its one JSON object. */
export async function runCliJson<T = Record<string, unknown>>(args: string[], env: Env): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`vigil ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** The command that starts a server: by default the Dockerfile's, `node … bin/vigil.js serve`, what `npm start` runs too. */
export type StartCommand = [command: string, ...args: string[]];

/** The Dockerfile's CMD (exec form), run from the repository's root as the image runs it from /app, with this test's node. */
function dockerfileCommand(): StartCommand {
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
  if (!cmd) throw new Error('the Dockerfile has no CMD in exec form');
  const [program, ...args] = JSON.parse(cmd[1]) as StartCommand;
  if (program !== 'node') throw new Error(`the Dockerfile's CMD runs ${program}, not node`);
  return [process.execPath, ...args];
}
export const dockerfileStart = dockerfileCommand();
const mainCommand = dockerfileStart;

/** Each documented way to start the server, as an operator or a supervisor would run it. */
export const documentedStarts: Record<string, StartCommand> = {
  'npm start': ['npm', 'start', '--silent'],
  'npx vigil serve': ['npx', 'vigil', 'serve'],
};

/** Starts the server and returns at once; `done` resolves when it exits. */
export function runMain(env: Env, command: StartCommand = mainCommand): { child: ChildProcess; done: Promise<Finished>; output: { stdout: string; stderr: string } } {
  const [program, ...args] = command;
  const child = spawn(program, args, { cwd: repoRoot, env: cleanEnv(env) });
  const output = collect(child);
  return { child, done: finished(child, output), output };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** Resolves when a line matching `pattern` has appeared on standard output. */
  waitForOutput(pattern: RegExp): Promise<void>;
  /** Sends the signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
}

/** Each process's parent, from /proc/<pid>/stat (Linux); a process that ended meanwhile is left out. */
function parentsOfAllProcesses(): Map<string, string> {
  const parents = new Map<string, string>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name, in parentheses, may hold spaces: fields are counted after it.
    parents.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return parents;
}

/**
 * The command line of the node process that serves, from /proc (Linux): the started process
 * itself, or the descendant that npm or a shell started for it.
 */
export function servingNodeArguments(server: ServerProcess): string[] {
  const family = new Set([String(server.child.pid)]);
  const parents = parentsOfAllProcesses();
  for (let grown = true; grown; ) {
    grown = false;
    for (const [pid, parent] of parents) {
      if (family.has(pid) || !family.has(parent)) continue;
      family.add(pid);
      grown = true;
    }
  }
  const servers = [...family]
    .map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean))
    .filter((argv) => path.basename(argv[0] ?? '') === 'node' && argv.at(-1) === 'serve');
  if (servers.length !== 1) throw new Error(`expected one node process serving, found ${servers.length}`);
  return servers[0];
}

export async function startServerProcess(env: Env, command?: StartCommand): Promise<ServerProcess> {
  const { child, done, output } = runMain({ PORT: '0', ...env }, command);
  const waitForOutput = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output.stdout)) return;
        child.stdout?.off('data', check);
        resolve();
      };
      child.stdout?.on('data', check);
      check();
      void done.then((result) => reject(new Error(`the server exited ${result.code} before printing ${pattern}: ${result.stderr}`)));
    });
  // An API process says where it listens; a worker (VIGIL_ROLE=worker) where its health checks are.
  const started = /listening on (http:\/\/\S+) |health checks at (http:\/\/\S+)\/healthz/;
  await waitForOutput(started);
  const [, api, worker] = started.exec(output.stdout)!;
  const url = api ?? worker;
  return {
    url,
    child,
    output,
    waitForOutput,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return done;
    },
  };
}

/**
 * A fresh directory for one embedded installation: empty, or with `migrated`, holding the run's
 * migrated database as `vigil restore` would leave it, for tests about what a server does rather
 * than about its first start (which costs initdb's seconds of CPU).
 */
export async function tempDataDir(options: { migrated?: boolean } = {}): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-test-'));
  const image = options.migrated ? await pgliteImage('migrated') : undefined;
  if (image) await writePgliteImage(image, embeddedDirectory(dir));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export const childSecretKey = 'child-process-secret-key-0123456789abcdef';

/**
 * A fresh schema on the test PostgreSQL and the environment that points a child process at it:
 * the schema travels in the URL as a connection option (`-c search_path=…`), which pg honours.
 */
export async function tempPostgresSchema(): Promise<{ schema: string; env: Env; url: string; drop(): Promise<void> }> {
  if (!postgresUrl) throw new Error('VIGIL_TEST_DATABASE_URL is not set');
  const schema = `vigil_proc_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    url: url.toString(),
    env: { DATABASE_URL: url.toString(), VIGIL_SECRET_KEY: childSecretKey },
    drop: () => admin(`DROP SCHEMA ${schema} CASCADE`),
  };
}

/** Calls a running server over HTTP; `path` is relative to /api/v1 unless it starts with /. */
export async function call(
  baseUrl: string,
  method: string,
  route: string,
  options: { apiKey?: string; body?: unknown } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${route.startsWith('/') ? route : `/api/v1/${route}`}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A POST whose headers are sent now and whose body is finished later: a request in flight. */
export function requestInFlight(baseUrl: string, apiKey: string, name: string) {
  const payload = JSON.stringify({ name });
  const request = http.request(`${baseUrl}/api/v1/projects`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (incoming) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
    });
  });
  const connected = new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', () => resolve())));
  request.write(payload.slice(0, 3));
  return { connected, response, finish: () => request.end(payload.slice(3)) };
}
