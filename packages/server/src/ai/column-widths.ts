import pg from 'pg';
import type { Queryable } from '../db/connect.js';
import { type Clock, systemClock } from '../platform/clock.js';
import { projectSchemaName } from '../platform/project-schema.js';
import { type ColumnWidth, type PlanNode, type RelationWidths, nodesOf } from './long-values-cost.js';

interface Attribute {
  oid: number;
  kind: string;
  name: string;
  /** Bytes of a fixed-width type; -1 for a variable-width one (text, numeric). */
  length: number;
  text: boolean;
  numeric: boolean;
}

/** How long a measurement of the alerts view, whose rows change, is trusted. */
const viewMeasurementMs = 60_000;

/**
 * The measured widths of the relations a project's statements read, for the embedded database's
 * estimate of what their long values cost (long-values-cost.ts). A dataset's table never changes once
 * ready (a replacement is a new table), so its measurement is kept for the table's life; the
 * alerts view is measured again after a minute.
 */
export class ColumnWidths {
  private readonly tables = new Map<number, RelationWidths>();
  private readonly views = new Map<number, { measuredAt: number; widths: RelationWidths }>();

  constructor(private readonly clock: Clock = systemClock) {}

  /**
   * The widths of each table the plan scans, read in `tx` as the project's role. A main table,
   * which the plan shows beneath the project's view of it, is measured through `viewOfMainTable`.
   */
  async ofPlan(tx: Queryable, projectId: string, plan: PlanNode, viewOfMainTable: string): Promise<(node: PlanNode) => RelationWidths | undefined> {
    const schema = projectSchemaName(projectId);
    const relationOf = (node: PlanNode) =>
      node['Relation Name'] === undefined ? undefined : node.Schema === schema ? node['Relation Name'] : viewOfMainTable;
    const measured = new Map<string, RelationWidths>();
    for (const relation of new Set([...nodesOf(plan)].map(relationOf))) {
      if (relation !== undefined) measured.set(relation, await this.measure(tx, schema, relation));
    }
    return (node) => {
      const relation = relationOf(node);
      return relation === undefined ? undefined : measured.get(relation);
    };
  }

  private async measure(tx: Queryable, schema: string, relation: string): Promise<RelationWidths> {
    const attributes = await tx.query<Attribute>(
      `SELECT c.oid::int8::float8 AS oid, c.relkind AS kind, a.attname AS name, a.attlen::int AS length, t.typcategory = 'S' AS text, t.typname = 'numeric' AS numeric
       FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid JOIN pg_type t ON t.oid = a.atttypid
       WHERE c.relnamespace = $1::regnamespace AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
      [pg.escapeIdentifier(schema), relation],
    );
    if (attributes.length === 0) return { rows: 0, columns: new Map() };
    const [{ oid, kind }] = attributes;
    const now = this.clock.now().getTime();
    const keptTable = this.tables.get(oid);
    if (keptTable) return keptTable;
    const keptView = this.views.get(oid);
    if (keptView && now - keptView.measuredAt < viewMeasurementMs) return keptView.widths;

    const widths = await measureRelation(tx, `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(relation)}`, attributes);
    if (kind === 'v') this.views.set(oid, { measuredAt: now, widths });
    else this.tables.set(oid, widths);
    return widths;
  }
}

/**
 * Counts the rows and measures each variable-width column's average and longest bytes in one
 * pass. octet_length reads a text's length from its header without decompressing it; a numeric is
 * measured by its digits written out (its stored size may be compressed), other types by their
 * stored size.
 */
async function measureRelation(tx: Queryable, relation: string, attributes: Attribute[]): Promise<RelationWidths> {
  const variable = attributes.filter((attribute) => attribute.length < 0);
  const measure = (attribute: Attribute) => {
    const column = pg.escapeIdentifier(attribute.name);
    if (attribute.text) return `octet_length(${column})`;
    return attribute.numeric ? `length(${column}::text)` : `pg_column_size(${column})`;
  };
  const measures = variable.flatMap((attribute, index) => [
    `coalesce(avg(${measure(attribute)}), 0)::float8 AS avg${index}`,
    `coalesce(max(${measure(attribute)}), 0)::float8 AS max${index}`,
  ]);
  const [measured] = await tx.query<Record<string, number>>(`SELECT ${['count(*)::float8 AS rows', ...measures].join(', ')} FROM ${relation}`);
  const columns = new Map<string, ColumnWidth>(
    attributes.map((attribute) => {
      const bytes = attribute.length >= 0 ? attribute.length : 0;
      return [attribute.name, { bytes, longest: bytes, numeric: attribute.numeric }];
    }),
  );
  variable.forEach((attribute, index) =>
    columns.set(attribute.name, { bytes: measured[`avg${index}`], longest: measured[`max${index}`], numeric: attribute.numeric }),
  );
  return { rows: measured.rows, columns };
}
