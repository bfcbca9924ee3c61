import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino, { type DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import { boundedLogOutput, droppedLogLines, exitStallMs } from '../src/platform/log-output.js';
import { registry } from '../src/platform/metrics.js';

const lines = 2000;
const message = 'x'.repeat(200);

interface LogLine {
  level: number;
  msg: string;
  n?: number;
  droppedLines?: number;
}

function writeLines(output: DestinationStream): void {
  const log = pino({}, output);
  for (let n = 0; n < lines; n++) log.info({ n }, message);
}

const parse = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LogLine);

/** Reads a non-blocking pipe until `done` says what came is complete. */
async function readUntil(fd: number, done: (text: string) => boolean): Promise<string> {
  const chunk = Buffer.alloc(64 * 1024);
  let text = '';
  const deadline = Date.now() + 10_000;
  while (!done(text)) {
    if (Date.now() > deadline) throw new Error(`the pipe stopped giving lines after ${text.length} bytes`);
    try {
      const read = readSync(fd, chunk);
      text += chunk.subarray(0, read).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await sleep(10);
    }
  }
  return text;
}

function ended(output: DestinationStream): Promise<void> {
  return new Promise((resolve) => {
    const stream = output as DestinationStream & { end(): void; once(event: 'close', listener: () => void): void };
    stream.once('close', resolve);
    stream.end();
  });
}

/**
 * A named pipe for a log: the reader's end non-blocking, for the test to read when it chooses; the
 * writer's blocking, as the pipe to a log shipper is: a full pipe holds the write until it is read.
 */
function logPipe(): { reader: number; writer: number } {
  const fifo = path.join(mkdtempSync(path.join(os.tmpdir(), 'vigil-log-')), 'stdout');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  return { reader, writer: openSync(fifo, constants.O_WRONLY) };
}

describe('the log output', () => {
  it('holds at most its bound while its reader takes nothing, and counts and reports every line it drops', async () => {
    const { reader, writer } = logPipe();
    const maxBytes = 64 * 1024;
    const output = boundedLogOutput(writer, maxBytes);
    const droppedBefore = droppedLogLines();

    writeLines(output);
    await sleep(200);
    const dropped = droppedLogLines() - droppedBefore;
    expect(dropped).toBeGreaterThan(0);
    expect(await registry.getSingleMetricAsString('vigil_log_lines_dropped_total')).toContain(`vigil_log_lines_dropped_total ${droppedLogLines()}`);

    const text = await readUntil(reader, (read) => read.includes('log lines were dropped'));
    const received = parse(text);
    const requestLines = received.filter((line) => line.msg === message);
    const notice = received.find((line) => line.droppedLines !== undefined);
    expect(notice).toMatchObject({ level: 40, droppedLines: dropped });
    expect(requestLines.length + dropped).toBe(lines);
    // What was kept: the pipe's own 64 KiB, one write in flight (16 KiB at most) and the bound.
    const lineBytes = text.indexOf('\n') + 1;
    expect(requestLines.length).toBeLessThanOrEqual(Math.ceil((64 * 1024 + 16 * 1024 + maxBytes) / lineBytes));
    expect(requestLines.map((line) => line.n)).toEqual([...requestLines.map((line) => line.n)].sort((a, b) => (a ?? 0) - (b ?? 0)));

    await ended(output);
    closeSync(reader);
  });

  it('drops nothing and reports nothing when its output keeps up', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vigil-log-')), 'log.jsonl');
    const fd = openSync(file, 'w');
    // The bound a server runs with: every line of the burst is held until the file takes it.
    const output = boundedLogOutput(fd);
    const droppedBefore = droppedLogLines();

    writeLines(output);
    await ended(output);

    const received = parse(readFileSync(file, 'utf8'));
    expect(received.map((line) => line.n)).toEqual([...Array(lines).keys()]);
    expect(droppedLogLines()).toBe(droppedBefore);
  });

  it('writes a line that comes alone without waiting for others to fill a chunk', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vigil-log-')), 'log.jsonl');
    const output = boundedLogOutput(openSync(file, 'w'));
    pino({}, output).info({ n: 1 }, 'alone');

    const deadline = Date.now() + 5000;
    while (!readFileSync(file, 'utf8').includes('"alone"') && Date.now() < deadline) await sleep(20);
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject([{ n: 1, msg: 'alone' }]);
    await ended(output);
  });

  it('ends an exiting process whose output takes nothing: the lines it holds are dropped after two seconds without progress', () => {
    // A reader that never reads: a log shipper that hangs. The pipe fills, then holds every write.
    const { reader, writer } = logPipe();
    const script = [
      `import pino from 'pino';`,
      `import { standardOutput } from ${JSON.stringify(path.resolve('packages/server/src/platform/log-output.ts'))};`,
      `const log = pino({}, standardOutput());`,
      `for (let n = 0; n < ${lines}; n++) log.info({ n }, ${JSON.stringify(message)});`,
      `setTimeout(() => process.exit(0), 300);`,
    ].join('\n');
    const started = Date.now();
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', writer, 'pipe'],
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    closeSync(writer);
    closeSync(reader);

    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    // It gave the output its chance first, then ended long before an orchestrator's SIGKILL.
    expect(Date.now() - started).toBeGreaterThanOrEqual(exitStallMs);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('writes the lines it holds when the process dies of an uncaught error', () => {
    const script = [
      `import pino from 'pino';`,
      `import { standardOutput } from ${JSON.stringify(path.resolve('packages/server/src/platform/log-output.ts'))};`,
      `const log = pino({}, standardOutput());`,
      `for (let n = 0; n < 3; n++) log.info({ n }, 'held');`,
      `throw new Error('the process dies');`,
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });

    expect(child.stderr).toContain('the process dies');
    expect(parse(child.stdout)).toMatchObject([0, 1, 2].map((n) => ({ n, msg: 'held' })));
  });
});
