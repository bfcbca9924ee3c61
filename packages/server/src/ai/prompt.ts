import type { TableDescription } from './project-data.js';
import type { ToolDefinition } from './provider.js';

export const runSqlTool: ToolDefinition = {
  name: 'run_sql',
  description:
    "Runs one read-only PostgreSQL SELECT (WITH allowed) over this project's tables and returns up to 100 rows as JSON. " +
    'Refused statements come back as an error you can correct.',
  parameters: {
    type: 'object',
    properties: { sql: { type: 'string', description: 'A single SELECT statement.' } },
    required: ['sql'],
    additionalProperties: false,
  },
};

function describeTable(table: TableDescription): string {
  const columns = table.columns
    .map((column) => `  - ${column.name} (${column.type})${column.originalName ? ` — originally "${column.originalName}"` : ''}`)
    .join('\n');
  const samples = table.samples.length > 0 ? `\n  sample rows: ${JSON.stringify(table.samples)}` : '';
  return `Table ${table.name} — ${table.about}, ${table.rowCount} rows\n${columns}${samples}`;
}

/** The system message: the tables, how to query them, and how to answer. */
export function systemPrompt(projectName: string, tables: TableDescription[], now: Date): string {
  return [
    `You answer questions about the data of the project "${projectName}". The current time is ${now.toISOString()}.`,
    'Compute answers from the data with the run_sql tool (PostgreSQL dialect, read-only, tables unqualified); never guess numbers.',
    'Only the tables below exist for you. Functions are limited to common aggregate, window, math, text and date functions: ' +
      'return rows rather than aggregating them into one text or array (no string_agg, array_agg), name the columns you need, ' +
      'and give ln, exp, sqrt and power an argument in double precision (sqrt(x::float8)).',
    'When you have the result, answer in one or a few plain sentences, citing the numbers. If the data cannot answer the question, say so.',
    '',
    tables.map(describeTable).join('\n\n'),
  ].join('\n');
}
