import type { FieldDef } from 'pg';

type RowBuilder = (values: unknown[]) => unknown;

const builders = new Map<string, RowBuilder>();
/** Column lists are written in code, so few; the bound only guards against a runaway of ad-hoc SQL. */
const maxBuilders = 1_000;

/**
 * PostgreSQL rows as objects (column name → value, in column order, a later column of the same
 * name winning as in pg), from rows pg read as arrays. pg builds object rows by spreading one
 * template object per result at a single call site; every column list the process queries meets
 * there, so V8 takes its slowest path, one generic property definition per value (callgrind: about
 * 120k of the 3.35M instructions of an alert list request). A function of its own per column list
 * creates each row from an object literal instead.
 */
export function objectRows<Row>(fields: FieldDef[], rows: unknown[][]): Row[] {
  const build = builderOf(fields);
  const objects = new Array<Row>(rows.length);
  for (let index = 0; index < rows.length; index++) objects[index] = build(rows[index]) as Row;
  return objects;
}

function builderOf(fields: FieldDef[]): RowBuilder {
  let key = '';
  for (const field of fields) key += `${field.name.length}:${field.name}`;
  let build = builders.get(key);
  if (build === undefined) {
    if (builders.size >= maxBuilders) builders.clear();
    // Computed only for __proto__, which as a plain key would set the row's prototype, not a column.
    const properties = fields.map((field, index) => `${field.name === '__proto__' ? '["__proto__"]' : JSON.stringify(field.name)}: values[${index}]`);
    build = new Function('values', `return { ${properties.join(', ')} };`) as RowBuilder;
    builders.set(key, build);
  }
  return build;
}
