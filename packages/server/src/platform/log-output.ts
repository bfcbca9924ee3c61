import pino from 'pino';

type LogOutput = ReturnType<typeof pino.destination>;

/**
 * What the log may hold in memory while its output takes nothing: about 60,000 request lines.
 * pino's destination writes asynchronously and, unbounded, keeps every line a stalled reader of
 * standard output (a log shipper that hangs, a terminal paused with Ctrl-S) does not take: 250
 * bytes a request, 2.7 GB an hour at 3,000 requests a second, until the process is killed for its
 * memory and every tenant with it.
 */
export const heldLogBytes = 16 * 1024 * 1024;

/**
 * Lines are written in chunks of this many bytes (about 30 request lines), or after at most
 * `lineDelayMs`: a write per line cost a saturated server about 20 µs of CPU per request, most of
 * it in handing each write to libuv's thread pool and back (BENCHMARKS.md, 2026-11-30).
 */
const chunkBytes = 8 * 1024;
const lineDelayMs = 100;

/**
 * How long an exiting process goes on writing the lines it holds to an output that takes none of
 * them (a log shipper that hangs, a pipe nobody reads) before it drops them and ends. pino's exit
 * handler writes them synchronously and retried such an output forever: SIGTERM never ended the
 * process, only its orchestrator's SIGKILL did.
 */
export const exitStallMs = 2000;

let dropped = 0;
let exiting = false;
const outputs = new Set<LogOutput>();

// Registered when this module loads, before any output exists, so that it runs before the exit
// handler pino gives each output, which then finds nothing held.
process.on('exit', () => {
  exiting = true;
  for (const output of outputs) writeHeldLines(output);
});

function writeHeldLines(output: LogOutput): void {
  try {
    output.flushSync();
  } catch {
    // The output took nothing for exitStallMs (or was closed): what it holds is dropped, and pino's exit handler skips it.
    output.destroy();
  }
}

/**
 * Whether the output tries again a write it could not take (EAGAIN): always while the process
 * runs (the bound drops what comes meanwhile); at exit, until it has taken nothing for exitStallMs.
 */
function retryPolicy(): (error: Error, writing: number, remaining: number) => boolean {
  let held = Number.POSITIVE_INFINITY;
  let tookAt = 0;
  return (_error, writing, remaining) => {
    if (!exiting) return true;
    const now = performance.now();
    if (writing + remaining < held) {
      held = writing + remaining;
      tookAt = now;
    }
    return now - tookAt < exitStallMs;
  };
}

/** The log lines every bounded output of this process has dropped since it started. */
export const droppedLogLines = (): number => dropped;

/**
 * A pino destination on `fd` that writes lines in chunks, holds at most `maxBytes` not yet written
 * and drops the lines beyond: each counted (droppedLogLines, which `vigil_log_lines_dropped_total`
 * reports) and, once the output has taken everything held, reported by one warning line with their
 * number. What is held is written when the process exits, an uncaught error included, unless the
 * output takes nothing for `exitStallMs`; a process killed outright (SIGKILL, the kernel short of
 * memory) loses its last `lineDelayMs` of lines.
 */
export function boundedLogOutput(fd: number, maxBytes = heldLogBytes): LogOutput {
  const output = pino.destination({
    dest: fd,
    sync: false,
    minLength: chunkBytes,
    periodicFlush: lineDelayMs,
    maxLength: maxBytes,
    retryEAGAIN: retryPolicy(),
  });
  outputs.add(output);
  output.on('close', () => outputs.delete(output));
  const notices = pino({}, output);
  let unreported = 0;
  output.on('drop', () => {
    unreported++;
    dropped++;
  });
  output.on('drain', () => {
    if (unreported === 0) return;
    const droppedLines = unreported;
    unreported = 0;
    notices.warn({ droppedLines }, `${droppedLines} log lines were dropped: the log's output took nothing while ${maxBytes} bytes waited for it`);
  });
  return output;
}

let standardOutputLog: LogOutput | undefined;

/** The process's one destination on standard output, for every logger that writes there. */
export function standardOutput(): LogOutput {
  return (standardOutputLog ??= boundedLogOutput(1));
}

/**
 * Resolves once standard output has taken every line held for it: before text written to it
 * directly (`vigil serve`'s banner), so that the lines logged first come first.
 */
export function standardOutputWritten(): Promise<void> {
  return new Promise((resolve) => standardOutput().flush(() => resolve()));
}

/** Writes text to standard output after every line logged before it (a log line may be held for up to `lineDelayMs`). */
export function writeAfterLogLines(text: string): void {
  standardOutput().write(text);
}
