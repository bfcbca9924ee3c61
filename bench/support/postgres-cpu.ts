import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks per second for /proc CPU times (`getconf CLK_TCK`: 100 on every x86 and arm64 build). */
const ticksPerSecond = 100;

/**
 * CPU time, user and system, that this machine's PostgreSQL processes (server, backends, background
 * workers) have used so far, in µs; undefined where /proc cannot tell (not Linux). Only meaningful
 * for a server on this machine, read before and after a phase whose connections stay open: a
 * backend that exits takes its time with it.
 */
export function postgresCpuMicros(): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name sits in parentheses and may hold spaces; the fields after it are counted from there.
    const nameEnd = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, nameEnd) !== 'postgres') continue;
    const fields = stat.slice(nameEnd + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / ticksPerSecond) * 1_000_000;
}

/** PostgreSQL's CPU time since a reading of postgresCpuMicros(), in µs; NaN where /proc cannot tell. */
export function postgresCpuMicrosSince(before: number | undefined): number {
  const now = postgresCpuMicros();
  return before === undefined || now === undefined ? Number.NaN : now - before;
}
