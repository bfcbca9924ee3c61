import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerSpec {
  name: string;
  /** The entry file, relative to the repository root; a `.ts` file runs with `node --import tsx`. */
  script: string;
  args?: readonly string[];
  env: Record<string, string>;
  /** Standard output and error of the server go here (Vigil's pino log lines among them). */
  logFile: string;
  /** A path answering 200 once the server takes requests. */
  readyPath: string;
  nodeOptions?: string[];
}

export interface RunningServer {
  url: string;
  /** CPU time (user + system) the server process has used so far; NaN where /proc is not there. */
  cpuSeconds(): number;
  /** Resident memory of the server process now, in bytes; NaN where /proc is not there. */
  rssBytes(): number;
  stop(): Promise<void>;
}

/**
 * Vigil's server as `npm start` runs it, node's flags included: `vigil serve`, from the compiled
 * build (bench/run.ts builds it first). Read from the start script, so that the two cannot differ.
 */
function npmStart(): { script: string; args: string[]; nodeOptions: string[] } {
  const { scripts } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = /^exec node (.+)$/.exec(scripts.start)?.[1].split(' ');
  const scriptAt = words?.findIndex((word) => !word.startsWith('-')) ?? -1;
  if (!words || scriptAt < 0) throw new Error(`npm start is not "exec node [flags] script [args]": ${scripts.start}`);
  return { nodeOptions: words.slice(0, scriptAt), script: words[scriptAt], args: words.slice(scriptAt + 1) };
}
export const vigilServe = npmStart();

const clockTicksPerSecond = 100;

/**
 * How long a server may take to answer its ready path. Generous on purpose: on a machine whose two
 * cores run other suites, compiling Vigil's TypeScript alone took 20–60 s, and a smoke run must
 * fail only on a server that is broken, never on a slow one.
 */
const startUpLimitMs = 300_000;

function processRssBytes(pid: number | undefined): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function processCpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return Number.NaN;
  }
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('could not find a free port');
  return address.port;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

function logTail(file: string): string {
  return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
}

/**
 * Every server under test runs in a child process of its own, started the same way, so the load
 * generator in this process competes with each of them alike.
 */
export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = openSync(spec.logFile, 'a');
  const loader = spec.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(spec.nodeOptions ?? []), ...loader, spec.script, ...(spec.args ?? [])], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited(child);
    clearTimeout(killer);
  };
  const deadline = Date.now() + startUpLimitMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited with code ${child.exitCode}:\n${logTail(spec.logFile)}`);
    const ready = await fetch(`${url}${spec.readyPath}`).then((response) => response.ok, () => false);
    if (ready) return { url, stop, cpuSeconds: () => processCpuSeconds(child.pid), rssBytes: () => processRssBytes(child.pid) };
    await sleep(200);
  }
  await stop();
  throw new Error(`${spec.name} did not answer ${spec.readyPath} within ${startUpLimitMs / 1000} s:\n${logTail(spec.logFile)}`);
}

/** Runs a command to completion and returns its standard output; a failure carries its standard error. */
export function runCommand(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${args.join(' ')} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}
