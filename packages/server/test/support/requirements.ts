import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { type Requirement, requirements, type SkipRecord, skipLogVariable } from './requirement-list.js';

/*
 * What some tests need beyond Node and npm. A test group asks `needs(...)` whether it can run: on
 * a bare machine a missing part skips the group and is written to the skip log, which the
 * reporter (test-report.ts) prints at the end with the one command that enables it; with CI=true
 * a missing part fails the file instead, so CI can never pass by skipping.
 */

const python = '/usr/bin/python3';

function present(requirement: Requirement): boolean {
  switch (requirement) {
    case 'postgres':
      return Boolean(process.env.VIGIL_TEST_DATABASE_URL);
    case 'redis':
      return Boolean(process.env.VIGIL_TEST_REDIS_URL);
    case 'mariadb':
      return Boolean(process.env.VIGIL_TEST_MYSQL_URL);
    case 'chromium':
      return existsSync('/usr/bin/chromium');
    case 'python':
      return existsSync(python) && spawnSync(python, ['-c', 'import httpx, pytest, pytest_asyncio, flask, hatchling'], { stdio: 'ignore' }).status === 0;
    case 'alertmanager':
      return existsSync('/usr/bin/prometheus-alertmanager');
    case 'promtool':
      return existsSync('/usr/bin/promtool');
    case 'postgres-server':
      return existsSync('/usr/lib/postgresql');
  }
}

const known = new Map<Requirement, boolean>();

/**
 * The test file that asked, from the call stack: vitest's own state (`expect.getState()`) cannot be
 * imported outside a test run, and the bench loads this module through the test app.
 */
function callingTestFile(): string {
  const frame = new Error().stack?.split('\n').find((line) => line.includes('.test.ts'));
  const file = frame?.match(/(\/[^\s:()]+\.test\.ts)/)?.[1];
  return file ? path.relative(process.cwd(), file) : 'unknown';
}

/** Whether `group` can run; logs the skip, or under CI=true throws, when it cannot. */
export function needs(requirement: Requirement, group: string): boolean {
  if (!known.has(requirement)) known.set(requirement, present(requirement));
  if (known.get(requirement)) return true;
  const { what, enable } = requirements[requirement];
  if (process.env.CI === 'true') throw new Error(`CI=true, and "${group}" needs ${what}, which is missing: ${enable}`);
  const log = process.env[skipLogVariable];
  const file = callingTestFile();
  if (log) appendFileSync(log, `${JSON.stringify({ requirement, file, group } satisfies SkipRecord)}\n`);
  return false;
}
