import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/processes.js';

const pythonClient = path.join(repoRoot, 'clients/python');

/** Runs the Python client's pytest suite (it starts its own Vigil server) to completion. */
function pytest(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], {
      cwd: pythonClient,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('the Python client (clients/python)', () => {
  it('passes its pytest suite against a real server, in both the sync and the async client', { timeout: 900_000 }, async () => {
    const { code, output } = await pytest();
    if (code !== 0) expect.fail(`pytest exited ${code}:\n${output}`);
    expect(output).toMatch(/\d+ passed/);
    expect(output).not.toMatch(/skipped|xfail/);
  });
});
