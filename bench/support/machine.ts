import os from 'node:os';

/** What a figure was measured on: without it a number means nothing. */
export function describeMachine(at: Date = new Date()): string {
  const [load1, load5] = os.loadavg();
  return [
    `- Date: ${at.toISOString()}`,
    `- Machine: ${os.availableParallelism()} cores (nproc), ${os.cpus()[0]?.model ?? 'unknown CPU'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()}`,
    `- Node.js ${process.version}; load average at start ${load1.toFixed(2)} (1 min), ${load5.toFixed(2)} (5 min)`,
  ].join('\n');
}
