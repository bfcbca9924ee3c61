import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { type Requirement, requirements, type SkipRecord, skipLogVariable } from './requirement-list.js';

/**
 * Printed after vitest's own summary: each group of tests skipped for want of a part of the
 * machine (requirements.ts), with the one command that enables it, so a bare machine's green run
 * says what it did not test; and under CI the ten slowest test files, to keep the suite's time in view.
 */
export default class TestReport implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    const log = process.env[skipLogVariable];
    if (log && existsSync(log)) {
      const records = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as SkipRecord);
      rmSync(log, { force: true });
      const byRequirement = new Map<Requirement, Set<string>>();
      for (const record of records) byRequirement.set(record.requirement, (byRequirement.get(record.requirement) ?? new Set()).add(record.file));
      if (byRequirement.size > 0) {
        lines.push('', 'Skipped, for want of a part of this machine (CI=true runs them all):');
        for (const [requirement, files] of byRequirement) {
          const { what, enable } = requirements[requirement];
          lines.push(`  ${what}: ${files.size} file${files.size === 1 ? '' : 's'} (${[...files].sort().join(', ')})`, `    enable: ${enable}`);
        }
      }
    }
    if (process.env.CI) {
      const slowest = [...modules]
        .map((module) => ({ file: path.relative(process.cwd(), module.moduleId), ms: module.diagnostic().duration }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 10);
      lines.push('', 'The ten slowest test files:', ...slowest.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`));
    }
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  }
}
