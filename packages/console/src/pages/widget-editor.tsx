import type { Bucket, Dataset, DatasetColumn, FilterOp, MeasureFn, StructuredQuery, WidgetFilter, WidgetInput, WidgetKind } from '../api-types';
import { widgetKinds } from '../api-types';
import { Choice, Field, optionsOf } from '../ui';

/** The alerts source's columns (docs/dashboards.md), typed as a dataset's are. */
const alertColumns: DatasetColumn[] = [
  ...['severity', 'status', 'projectId', 'title', 'area', 'assigneeId'].map((name) => ({ name, originalName: name, type: 'text' as const })),
  ...['createdAt', 'acknowledgedAt', 'resolvedAt'].map((name) => ({ name, originalName: name, type: 'timestamp' as const })),
];
const kindLabels: Record<WidgetKind, string> = { number: 'Number', line: 'Line chart', bar: 'Bar chart', pie: 'Pie chart', table: 'Table', alerts: 'Alert list' };
const measureLabels: Record<MeasureFn, string> = { count: 'Count of rows', sum: 'Sum of', avg: 'Average of', min: 'Minimum of', max: 'Maximum of' };
const opLabels: Record<FilterOp, string> = { eq: 'is', neq: 'is not', gt: '>', gte: '≥', lt: '<', lte: '≤', in: 'is one of (comma-separated)' };
const buckets: Bucket[] = ['hour', 'day', 'week', 'month'];

const isNumeric = (column: DatasetColumn) => column.type === 'integer' || column.type === 'numeric';
const isTemporal = (column: DatasetColumn) => column.type === 'date' || column.type === 'timestamp';
/** Which columns a measure may read: sum and avg a number, min and max a number or a time. */
const measurable = (fn: MeasureFn, column: DatasetColumn) => (fn === 'sum' || fn === 'avg' ? isNumeric(column) : isNumeric(column) || isTemporal(column));

/** A filter's text as the API wants it: a number for a numeric column, a list for `in`. */
function filterValue(text: string, op: FilterOp, column: DatasetColumn | undefined): WidgetFilter['value'] {
  const one = (part: string) => (column && isNumeric(column) && part.trim() !== '' && !Number.isNaN(Number(part)) ? Number(part) : part.trim());
  return op === 'in' ? text.split(',').map(one) : one(text);
}
const filterText = (value: WidgetFilter['value']) => (Array.isArray(value) ? value.join(', ') : String(value));

export function WidgetEditor(props: {
  widget: WidgetInput;
  index: number;
  count: number;
  datasets: Dataset[];
  error?: string;
  onChange: (widget: WidgetInput) => void;
  onMove: (offset: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { widget, index } = props;
  const name = `Widget ${index + 1}`;
  const isSql = 'sql' in widget.query;
  const query = (isSql ? { source: 'alerts' } : widget.query) as StructuredQuery;
  const dataset = query.source === 'dataset' ? props.datasets.find((one) => one.id === query.datasetId) : undefined;
  const columns = query.source === 'alerts' ? alertColumns : (dataset?.columns ?? []);
  const column = (columnName: string | undefined) => columns.find((one) => one.name === columnName);
  const setQuery = (changes: Partial<StructuredQuery>) => {
    const next: StructuredQuery = { ...query, ...changes };
    for (const key of Object.keys(next) as (keyof StructuredQuery)[]) if (next[key] === undefined || next[key] === '') delete next[key];
    props.onChange({ ...widget, query: next });
  };
  const setSource = (value: string) =>
    setQuery(value === 'alerts' ? { source: 'alerts', datasetId: undefined, measure: { fn: 'count' }, groupBy: undefined, bucket: undefined, filters: undefined } : { source: 'dataset', datasetId: value, measure: { fn: 'count' }, groupBy: undefined, bucket: undefined, filters: undefined });
  const fn = query.measure?.fn ?? 'count';
  const filters = query.filters ?? [];
  const setFilter = (at: number, filter: WidgetFilter | undefined) => {
    const next = filter ? filters.map((one, i) => (i === at ? filter : one)) : filters.filter((_, i) => i !== at);
    setQuery({ filters: next.length ? next : undefined });
  };
  const groupColumn = column(query.groupBy);
  const columnOptions = optionsOf(columns.map((one) => one.name));
  return (
    <fieldset class="widget-editor" data-widget={index}>
      <legend>
        {name}: {widget.title}
      </legend>
      <div class="row">
        <Field label="Title">
          <input required maxLength={200} value={widget.title} onInput={(e) => props.onChange({ ...widget, title: e.currentTarget.value })} />
        </Field>
        <Choice label="Kind" value={widget.kind} options={optionsOf(widgetKinds, (kind) => kindLabels[kind as WidgetKind])} onChange={(kind) => props.onChange({ ...widget, kind: kind as WidgetKind })} />
        <Choice
          label="Query"
          value={isSql ? 'sql' : 'structured'}
          options={[
            { value: 'structured', label: 'Built from columns' },
            { value: 'sql', label: 'SQL' },
          ]}
          onChange={(mode) => props.onChange({ ...widget, query: mode === 'sql' ? { sql: 'SELECT severity, count(*) AS count FROM alerts GROUP BY severity' } : { source: 'alerts', measure: { fn: 'count' } } })}
        />
      </div>
      {isSql ? (
        <Field label="SQL (one SELECT over the project's alerts and datasets)">
          <textarea rows={3} value={(widget.query as { sql: string }).sql} onInput={(e) => props.onChange({ ...widget, query: { sql: e.currentTarget.value } })} />
        </Field>
      ) : (
        <>
          <div class="row">
            <Choice
              label="Source"
              value={query.source === 'alerts' ? 'alerts' : (query.datasetId ?? '')}
              options={[{ value: 'alerts', label: "The project's alerts" }, ...props.datasets.map((one) => ({ value: one.id, label: `Dataset ${one.name}` }))]}
              onChange={setSource}
            />
            {widget.kind !== 'alerts' && (
              <Choice
                label="Measure"
                value={fn}
                options={optionsOf(Object.keys(measureLabels), (one) => measureLabels[one as MeasureFn])}
                onChange={(value) => {
                  const next = value as MeasureFn;
                  const first = columns.find((one) => measurable(next, one));
                  setQuery({ measure: next === 'count' ? { fn: 'count' } : { fn: next, column: first?.name } });
                }}
              />
            )}
            {widget.kind !== 'alerts' && fn !== 'count' && (
              <Choice
                label="Of column"
                value={query.measure?.column ?? ''}
                options={optionsOf(columns.filter((one) => measurable(fn, one)).map((one) => one.name))}
                onChange={(value) => setQuery({ measure: { fn, column: value } })}
              />
            )}
            {widget.kind !== 'alerts' && widget.kind !== 'number' && (
              <Choice label="Group by" value={query.groupBy ?? ''} options={columnOptions} none="Nothing (one value)" onChange={(value) => setQuery({ groupBy: value || undefined, bucket: undefined })} />
            )}
            {groupColumn && isTemporal(groupColumn) && (
              <Choice label="Time bucket" value={query.bucket ?? ''} options={optionsOf(buckets)} none="Each value" onChange={(value) => setQuery({ bucket: (value || undefined) as Bucket | undefined })} />
            )}
            <Field label="Limit (rows)">
              <input type="number" min={1} max={1000} value={query.limit ?? ''} onInput={(e) => setQuery({ limit: e.currentTarget.value ? Number(e.currentTarget.value) : undefined })} />
            </Field>
          </div>
          {filters.map((filter, at) => (
            <div class="row filter" key={at} role="group" aria-label={`Filter ${at + 1} of ${name}`}>
              <Choice label="Column" value={filter.column} options={columnOptions} onChange={(value) => setFilter(at, { ...filter, column: value })} />
              <Choice
                label="Condition"
                value={filter.op}
                options={optionsOf(Object.keys(opLabels), (op) => opLabels[op as FilterOp])}
                onChange={(value) => setFilter(at, { ...filter, op: value as FilterOp, value: filterValue(filterText(filter.value), value as FilterOp, column(filter.column)) })}
              />
              <Field label="Value">
                <input value={filterText(filter.value)} onChange={(e) => setFilter(at, { ...filter, value: filterValue(e.currentTarget.value, filter.op, column(filter.column)) })} />
              </Field>
              <button type="button" class="secondary" onClick={() => setFilter(at, undefined)}>
                Remove filter
              </button>
            </div>
          ))}
          {columns.length > 0 && (
            <button type="button" class="secondary" onClick={() => setQuery({ filters: [...filters, { column: columns[0].name, op: 'eq', value: '' }] })}>
              Add a filter
            </button>
          )}
        </>
      )}
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <div class="row actions widget-actions">
        <button type="button" class="secondary" disabled={index === 0} onClick={() => props.onMove(-1)}>
          Move up
        </button>
        <button type="button" class="secondary" disabled={index === props.count - 1} onClick={() => props.onMove(1)}>
          Move down
        </button>
        <button type="button" class="danger" onClick={props.onRemove}>
          Remove {name.toLowerCase()}
        </button>
      </div>
    </fieldset>
  );
}
