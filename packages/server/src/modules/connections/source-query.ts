import { invalid } from '../../platform/errors.js';
import type { DbType } from './schema.js';

/** The query text with string literals, quoted names and comments blanked out, to look at its structure. */
function structureOf(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""')
    .replace(/`(?:[^`]|``)*`/g, '``');
}

/**
 * One SELECT, without a trailing semicolon. This is a courtesy check that gives a clear message;
 * what makes the query harmless is the read-only transaction it runs in on the source.
 */
export function singleSelect(query: string): string {
  const trimmed = query.trim().replace(/;\s*$/, '');
  const structure = structureOf(trimmed).trim();
  if (structure.includes(';')) throw invalid('query', 'must be a single statement');
  if (!/^(select|with)\b/i.test(structure) && !/^\(\s*select\b/i.test(structure)) throw invalid('query', 'must be a SELECT');
  return trimmed;
}

const quote = (dbType: DbType, name: string) => (dbType === 'mysql' ? `\`${name}\`` : `"${name}"`);

/** "sales" or "schema.sales" as a quoted name; quotes and backticks are not allowed in names. */
export function quotedTable(dbType: DbType, table: string): string {
  const parts = table.split('.');
  if (parts.length > 2 || parts.some((part) => part.trim() === '' || /["`\0]/.test(part))) {
    throw invalid('table', 'must be a table name, optionally qualified by its schema ("public.sales")');
  }
  return parts.map((part) => quote(dbType, part)).join('.');
}

/** The SELECT that reads at most `maxRows + 1` rows, so one more than the cap shows that the source holds too many. */
export function cappedSelect(dbType: DbType, source: { table?: string; query?: string }, maxRows: number): string {
  const inner = source.table !== undefined ? `SELECT * FROM ${quotedTable(dbType, source.table)}` : singleSelect(source.query ?? '');
  return `SELECT * FROM (${inner}) AS vigil_source LIMIT ${maxRows + 1}`;
}
