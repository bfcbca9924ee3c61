import type { Chart } from 'chart.js';
import type { EmbeddedDashboard, WidgetResult } from './api.js';
import { type ChartColors, drawChart, type Series } from './charts.js';

type Child = Node | string;

function el(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return numberFormat.format(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A timestamp label of a time bucket, shortened to what the bucket needs: '2026-01-05T00:00:00.000Z' → '2026-01-05'. */
const labelText = (value: unknown) => (typeof value === 'string' ? value.replace(/T00:00:00(\.000)?(Z|\+00(:00)?)?$/, '') : cellText(value));

function dataTable(columns: string[], rows: Record<string, unknown>[], caption: string | undefined, hidden: boolean): HTMLElement {
  const table = el(
    'table',
    hidden ? { class: 'visually-hidden' } : {},
    ...(caption ? [el('caption', { class: 'visually-hidden' }, caption)] : []),
    el('thead', {}, el('tr', {}, ...columns.map((column) => el('th', { scope: 'col' }, column)))),
    el('tbody', {}, ...rows.map((row) => el('tr', {}, ...columns.map((column) => el('td', {}, cellText(row[column])))))),
  );
  return hidden ? table : el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': caption ?? 'table' }, table);
}

function seriesOf(widget: WidgetResult): Series | string {
  const [label, value] = widget.columns;
  if (label === undefined || value === undefined) return 'This chart needs two columns: a label and a value.';
  return { labels: widget.rows.map((row) => labelText(row[label])), values: widget.rows.map((row) => Number(row[value])) };
}

/** Renders widgets into `container`; returns the charts drawn, for the caller to destroy before the next render. */
export function renderDashboard(container: HTMLElement, dashboard: EmbeddedDashboard, colors: ChartColors): Chart[] {
  const draws: (() => Chart)[] = [];
  const widgets = dashboard.widgets.map((widget) => {
    const body = widgetBody(widget, colors, draws);
    return el('figure', { class: 'widget', 'data-widget-id': widget.id, 'data-kind': widget.kind }, el('h3', {}, widget.title), body);
  });
  container.replaceChildren(
    el('h2', {}, dashboard.name),
    ...(dashboard.description ? [el('p', { class: 'description' }, dashboard.description)] : []),
    el('div', { class: 'grid' }, ...widgets),
  );
  // Charts are drawn once their canvas is in the document, so Chart.js can measure the container.
  return draws.map((draw) => draw());
}

function widgetBody(widget: WidgetResult, colors: ChartColors, draws: (() => Chart)[]): HTMLElement {
  if (widget.error !== null) return el('p', { class: 'widget-error' }, widget.error);
  switch (widget.kind) {
    case 'number': {
      const first = widget.rows[0];
      const value = first === undefined ? undefined : first[widget.columns[widget.columns.length - 1]];
      return el('p', { class: 'number', 'data-value': String(value ?? '') }, value === undefined ? '–' : cellText(value));
    }
    case 'table':
      return dataTable(widget.columns, widget.rows, widget.title, false);
    case 'alerts':
      if (widget.rows.length === 0) return el('p', { class: 'muted' }, 'No alerts.');
      return el(
        'ul',
        { class: 'alerts' },
        ...widget.rows.map((row) =>
          el(
            'li',
            { 'data-alert-id': cellText(row.id) },
            el('span', { class: `severity severity-${cellText(row.severity)}` }, cellText(row.severity)),
            el('span', { class: 'alert-title' }, cellText(row.title)),
            el('span', { class: 'muted' }, cellText(row.status)),
          ),
        ),
      );
    default: {
      const series = seriesOf(widget);
      if (typeof series === 'string') return el('p', { class: 'widget-error' }, series);
      const summary = series.labels.map((label, index) => `${label}: ${cellText(series.values[index])}`).join(', ');
      const canvas = el('canvas', { role: 'img', 'aria-label': `${widget.kind} chart of ${widget.title}. ${summary}.` }) as HTMLCanvasElement;
      const kind = widget.kind;
      draws.push(() => drawChart(canvas, kind, series, colors, widget.columns[1]));
      // The values also as a table, for screen readers and for anyone reading the numbers exactly.
      const table = dataTable(widget.columns.slice(0, 2), widget.rows.map((row) => ({ ...row, [widget.columns[0]]: labelText(row[widget.columns[0]]) })), widget.title, true);
      return el('div', { class: 'chart', 'data-labels': JSON.stringify(series.labels), 'data-values': JSON.stringify(series.values) }, canvas, table);
    }
  }
}

export function renderState(container: HTMLElement, state: { loading: true } | { loading: false; message: string }): void {
  container.replaceChildren(
    state.loading
      ? el('p', { class: 'state', role: 'status' }, 'Loading dashboard…')
      : el('div', { class: 'state error', role: 'alert' }, el('strong', {}, 'This dashboard cannot be shown.'), el('span', {}, state.message)),
  );
}
