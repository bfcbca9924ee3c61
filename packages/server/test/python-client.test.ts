// The Python client's pytest suite, one vitest test per pytest test: pytest runs once (its session
// starts one Vigil server for all of them) and each test here reports its own outcome and output.
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/processes.js';
import { needs } from './support/requirements.js';

const pythonClient = path.join(repoRoot, 'clients/python');
const python = '/usr/bin/python3';
const pytestArgs = ['-m', 'pytest', '-p', 'no:cacheprovider'];
const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };

async function collect(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(python, [...pytestArgs, '--collect-only', '-q'], { cwd: pythonClient, env });
  return stdout.split('\n').filter((line) => line.startsWith('tests/') && line.includes('::'));
}

/** Runs the whole suite; every test's outcome (from `-rA`'s summary) and the full output. */
function pytest(): Promise<{ outcomes: Map<string, string>; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [...pytestArgs, '-q', '-rA'], { cwd: pythonClient, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', () => {
      const outcomes = new Map<string, string>();
      for (const match of output.matchAll(/^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (tests\/\S+)/gm)) outcomes.set(match[2], match[1]);
      resolve({ outcomes, output });
    });
  });
}

/** pytest's report of one test (its `____ name ____` section), or the whole output when it has none. */
function sectionOf(output: string, id: string): string {
  const name = id.slice(id.lastIndexOf('::') + 2);
  const start = output.search(new RegExp(`^_+ ${name.replace(/[[\]().*+?^$\\|{}]/g, '\\$&')} _+$`, 'm'));
  if (start < 0) return output;
  const next = output.slice(start + 1).search(/^(_{3,} \S.* _{3,}|={3,} .* ={3,})$/m);
  return next < 0 ? output.slice(start) : output.slice(start, start + 1 + next);
}

const tests = needs('python', 'the Python client (clients/python)') ? await collect() : [];

describe.runIf(tests.length > 0)('the Python client (clients/python), against a real server', () => {
  let run: { outcomes: Map<string, string>; output: string };

  beforeAll(async () => {
    run = await pytest();
  }, 900_000);

  it('collects tests in every file of its suite', () => {
    const files = new Set(tests.map((id) => id.split('::')[0]));
    expect(files.size).toBeGreaterThanOrEqual(8);
  });

  it.each(tests)('%s', (id) => {
    const outcome = run.outcomes.get(id);
    if (outcome !== 'PASSED') expect.fail(`${id}: ${outcome ?? 'no outcome reported'}\n${sectionOf(run.output, id)}`);
  });
});
