import { upload } from './data.js';
import type { TestApp, TestOrg } from './app.js';
import { createAlert, createProject, type One } from './resources.js';

export interface WidgetResult {
  id: string;
  title: string;
  kind: string;
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  error: string | null;
}

export interface Dashboard {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  widgets: { id: string; title: string; kind: string; query: Record<string, unknown> }[];
  createdAt: string;
  updatedAt: string;
}

export interface CreatedEmbedToken {
  id: string;
  token: string;
  dashboardId: string;
  theme: string | null;
  expiresAt: string;
  embedUrl: string;
}

export const salesCsv = ['region,amount,sold_on', 'north,120,2026-01-05', 'south,80,2026-01-05', 'north,30,2026-01-12', 'east,50,2026-02-02'].join('\n');

/** The widgets of docs/dashboards.md's example, over the project's alerts and its "sales" dataset. */
export const exampleWidgets = (datasetId: string) => [
  { title: 'Active alerts', kind: 'number', query: { source: 'alerts', measure: { fn: 'count' }, filters: [{ column: 'status', op: 'eq', value: 'active' }] } },
  { title: 'Alerts by severity', kind: 'pie', query: { source: 'alerts', measure: { fn: 'count' }, groupBy: 'severity' } },
  { title: 'Sales by region', kind: 'bar', query: { source: 'dataset', datasetId, measure: { fn: 'sum', column: 'amount' }, groupBy: 'region' } },
  { title: 'Sales per month', kind: 'line', query: { source: 'dataset', datasetId, measure: { fn: 'sum', column: 'amount' }, groupBy: 'sold_on', bucket: 'month' } },
  { title: 'Regions', kind: 'table', query: { sql: 'SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC' } },
  { title: 'Latest alerts', kind: 'alerts', query: { source: 'alerts', limit: 5 } },
];

export interface SeededDashboard {
  projectId: string;
  datasetId: string;
  dashboard: Dashboard;
}

/**
 * A project with six alerts (3 critical, 1 high, 2 low; one critical resolved) and a four-row
 * sales dataset, and a dashboard with one widget of every kind over them.
 */
export async function seedDashboard(t: TestApp, org: TestOrg, name = 'Shop'): Promise<SeededDashboard> {
  const project = await createProject(t, org, name);
  for (const [title, severity] of [
    ['Card declines', 'critical'],
    ['Checkout down', 'critical'],
    ['Refund spike', 'critical'],
    ['Slow search', 'high'],
    ['Stale cache', 'low'],
    ['Typo on page', 'low'],
  ]) {
    await createAlert(t, org, { title, severity, projectId: project.id });
  }
  const alerts = await t.request<{ data: { id: string; title: string }[] }>('GET', `alerts?projectId=${project.id}&limit=100`, { apiKey: org.apiKey });
  const refund = alerts.body.data.find((alert) => alert.title === 'Refund spike');
  await t.request('POST', `alerts/${refund?.id}/resolve`, { apiKey: org.apiKey, body: {} });
  const uploaded = await upload(t, org.apiKey, project.id, salesCsv, { query: { name: 'sales' } });
  if (uploaded.status !== 201) throw new Error(`dataset not uploaded: ${JSON.stringify(uploaded.body)}`);
  const datasetId = uploaded.body.data.id;
  const created = await t.request<One<Dashboard>>('POST', 'dashboards', {
    apiKey: org.apiKey,
    body: { projectId: project.id, name: 'Shop health', description: 'Alerts and sales', widgets: exampleWidgets(datasetId) },
  });
  if (created.status !== 201) throw new Error(`dashboard not created: ${JSON.stringify(created.body)}`);
  return { projectId: project.id, datasetId, dashboard: created.body.data };
}

/** POST /embed/tokens for the seeded dashboard unless the body names another. */
export async function mintToken(t: TestApp, org: TestOrg, dashboardId: string, body: Record<string, unknown> = {}): Promise<CreatedEmbedToken> {
  const response = await t.request<One<CreatedEmbedToken>>('POST', 'embed/tokens', { apiKey: org.apiKey, body: { dashboardId, ...body } });
  if (response.status !== 201) throw new Error(`embed token not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}
