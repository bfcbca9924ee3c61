import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

export interface RedisServer {
  url: string;
  /** Kills the server (SIGKILL: an outage, not a polite shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the data it had. */
  start(): Promise<void>;
}


/** A redis-server of the test's own on a free port, that the test can kill and restart. */
export async function startRedisServer(): Promise<RedisServer & { remove(): Promise<void> }> {
  const port = await freePort();
  // Append-only with fsync on every write: like a production Redis, it keeps its counts across a kill.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-redis-'));
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      let output = '';
      started.once('error', reject);
      started.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${output}`)));
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) resolve();
      });
    });
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    async remove() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
