import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../platform/pagination.js';
import { NullableString, OptionalText, StringEnum, Timestamp } from '../../platform/route-schemas.js';

export const widgetKinds = ['number', 'line', 'bar', 'pie', 'table', 'alerts'] as const;
export type WidgetKind = (typeof widgetKinds)[number];
export const measureFunctions = ['count', 'sum', 'avg', 'min', 'max'] as const;
export const buckets = ['hour', 'day', 'week', 'month'] as const;
export const filterOps = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in'] as const;

/** A column named in a structured query: checked against the source's real columns before it is quoted into SQL. */
const ColumnRef = Type.String({ minLength: 1, maxLength: 200 });
const FilterValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);

export const StructuredQuery = Type.Object(
  {
    source: StringEnum(['alerts', 'dataset'] as const, { description: "The project's alerts, or one of its datasets (then datasetId)." }),
    datasetId: Type.Optional(Type.String({ maxLength: 100 })),
    measure: Type.Optional(
      Type.Object(
        { fn: StringEnum(measureFunctions), column: Type.Optional(ColumnRef) },
        { additionalProperties: false, description: 'count needs no column; sum and avg a numeric one; min and max a numeric, date or timestamp one.' },
      ),
    ),
    groupBy: Type.Optional(ColumnRef),
    bucket: Type.Optional(StringEnum(buckets, { description: 'Truncates a date or timestamp groupBy column to this unit.' })),
    filters: Type.Optional(
      Type.Array(
        Type.Object(
          { column: ColumnRef, op: StringEnum(filterOps), value: Type.Union([FilterValue, Type.Array(FilterValue, { maxItems: 100 })]) },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
    ),
    columns: Type.Optional(Type.Array(ColumnRef, { minItems: 1, maxItems: 20, description: 'Without a measure: the columns to list (all when omitted).' })),
    orderBy: Type.Optional(
      Type.Object(
        {
          column: Type.String({ minLength: 1, maxLength: 200, description: '"label", "value" or, without a measure, a column.' }),
          direction: Type.Optional(StringEnum(['asc', 'desc'] as const)),
        },
        { additionalProperties: false },
      ),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);
export type StructuredQuery = Static<typeof StructuredQuery>;

export const SqlQuery = Type.Object(
  { sql: Type.String({ minLength: 1, maxLength: 20_000, description: "One SELECT over the project's tables, run through the AI component's guard." }) },
  { additionalProperties: false },
);
export type SqlQuery = Static<typeof SqlQuery>;

export const WidgetQuery = Type.Union([StructuredQuery, SqlQuery]);
export type WidgetQuery = Static<typeof WidgetQuery>;

export const Widget = Type.Object({
  id: Type.String({ examples: ['wgt_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
  title: Type.String(),
  kind: StringEnum(widgetKinds),
  query: WidgetQuery,
});
export type Widget = Static<typeof Widget>;

export const WidgetInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    kind: StringEnum(widgetKinds),
    query: WidgetQuery,
  },
  { additionalProperties: false },
);
export type WidgetInput = Static<typeof WidgetInput>;

export const Dashboard = Type.Object({
  id: Type.String({ examples: ['dash_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
  projectId: Type.String(),
  name: Type.String(),
  description: NullableString(),
  widgets: Type.Array(Widget),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Dashboard = Static<typeof Dashboard>;

const maxWidgets = 50;

export const CreateDashboard = Type.Object(
  {
    projectId: Type.String({ maxLength: 100 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: OptionalText(5000),
    widgets: Type.Optional(Type.Array(WidgetInput, { maxItems: maxWidgets })),
  },
  { additionalProperties: false },
);
export type CreateDashboard = Static<typeof CreateDashboard>;

export const UpdateDashboard = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: OptionalText(5000),
    widgets: Type.Optional(Type.Array(WidgetInput, { maxItems: maxWidgets, description: 'Replaces every widget, in this order.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateDashboard = Static<typeof UpdateDashboard>;

export const AddWidget = Type.Union([
  WidgetInput,
  Type.Object(
    {
      fromQueryId: Type.String({ maxLength: 100, description: "A chat answer's queryId: its SQL becomes the widget's query." }),
      title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The question asked, when omitted.' })),
      kind: Type.Optional(StringEnum(widgetKinds, { description: 'table when omitted.' })),
    },
    { additionalProperties: false },
  ),
]);
export type AddWidget = Static<typeof AddWidget>;

export const DashboardListQuery = Type.Composite([PageQuery, Type.Object({ projectId: Type.Optional(Type.String({ maxLength: 100 })) })]);
export type DashboardListQuery = Static<typeof DashboardListQuery>;

export const WidgetResult = Type.Object({
  id: Type.String(),
  title: Type.String(),
  kind: StringEnum(widgetKinds),
  columns: Type.Array(Type.String(), { description: 'For charts: the first column is the label, the second the value.' }),
  rows: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  truncated: Type.Boolean(),
  error: NullableString({ description: 'Why this widget has no result (its other widgets still have theirs).' }),
});
export type WidgetResult = Static<typeof WidgetResult>;

export const DashboardData = Type.Object({
  dashboardId: Type.String(),
  refreshedAt: Timestamp,
  widgets: Type.Array(WidgetResult),
});
export type DashboardData = Static<typeof DashboardData>;

export const isSqlQuery = (query: WidgetQuery): query is SqlQuery => 'sql' in query;
