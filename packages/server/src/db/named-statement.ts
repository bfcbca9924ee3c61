import { hash } from 'node:crypto';

/**
 * A statement that PostgreSQL keeps parsed on each connection under a name, and planned once a
 * generic plan costs no more than planning it afresh. For the few statements that run many times a
 * second and take long to plan: the webhook worker's claim and outcome statements took 1.5–2.3 ms
 * of PostgreSQL's CPU to plan, each time, against 1–6 ms to run (BENCHMARKS.md, 2026-12-01). The
 * embedded database ignores the name: its thread keeps every statement prepared by itself
 * (embedded-statements.ts). PostgreSQL refuses a prepared statement whose result columns changed
 * type meanwhile ("cached plan must not change result type"), so such a statement names the
 * columns it returns, and migrations only add (docs/operations.md, Upgrades).
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** `text` as a named statement; the name is its digest, so one name never stands for two texts. */
export function namedStatement(text: string): NamedStatement {
  return { name: `vigil_${hash('sha256', text, 'hex').slice(0, 24)}`, text };
}

/** The SQL of a statement given either way. */
export function statementText(sql: string | NamedStatement): string {
  return typeof sql === 'string' ? sql : sql.text;
}
