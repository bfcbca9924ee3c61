import type { ProjectReaders } from '../../ai/project-reader.js';
import type { ServiceContext } from '../../platform/context.js';
import { found, invalid } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, pageWindow, toPage } from '../../platform/pagination.js';
import { findQuery } from '../history/store.js';
import { findProject } from '../projects/store.js';
import type { AddWidget, CreateDashboard, Dashboard, DashboardData, DashboardListQuery, UpdateDashboard, Widget, WidgetInput } from './schema.js';
import { deleteDashboard, findDashboard, insertDashboard, listDashboards, updateDashboard } from './store.js';
import { WidgetQueries } from './widget-queries.js';

export class DashboardService {
  private readonly queries: WidgetQueries;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly readers: ProjectReaders,
  ) {
    this.queries = new WidgetQueries(ctx.db, readers);
  }

  async list(orgId: string, query: DashboardListQuery): Promise<Page<Dashboard>> {
    const window = pageWindow(query, orgId, this.ctx.config.secretKey);
    return toPage(await listDashboards(this.ctx.db, orgId, query.projectId, window), window);
  }

  async get(orgId: string, id: string): Promise<Dashboard> {
    return found(await findDashboard(this.ctx.db, orgId, id), 'dashboard');
  }

  async create(orgId: string, input: CreateDashboard): Promise<Dashboard> {
    // As for alerts: a project of another organization is simply not found.
    const project = found(await findProject(this.ctx.db, orgId, input.projectId), 'project');
    const widgets = await this.checkedWidgets(orgId, project.id, input.widgets ?? [], 'widgets');
    const at = this.ctx.clock.now();
    return insertDashboard(
      this.ctx.db,
      orgId,
      { id: newId('dashboard', at.getTime()), projectId: project.id, name: input.name, description: input.description ?? null, widgets },
      at,
    );
  }

  /** Sent widgets replace the whole list (each gets a new id). */
  async update(orgId: string, id: string, input: UpdateDashboard): Promise<Dashboard> {
    const current = await this.get(orgId, id);
    const widgets = input.widgets && (await this.checkedWidgets(orgId, current.projectId, input.widgets, 'widgets'));
    const changes = { name: input.name, description: input.description, widgets };
    return found(await updateDashboard(this.ctx.db, orgId, id, changes, this.ctx.clock.now()), 'dashboard');
  }

  async delete(orgId: string, id: string): Promise<void> {
    found(await deleteDashboard(this.ctx.db, orgId, id), 'dashboard');
  }

  /** Appends one widget: given whole, or made from a chat answer's SQL (`fromQueryId`). */
  async addWidget(orgId: string, id: string, input: AddWidget): Promise<Dashboard> {
    const dashboard = await this.get(orgId, id);
    const widget = 'fromQueryId' in input ? await this.widgetFromQuery(orgId, dashboard, input) : input;
    const [checked] = await this.checkedWidgets(orgId, dashboard.projectId, [widget], 'body');
    return this.ctx.db.transaction(async (tx) => {
      const locked = found(await findDashboard(tx, orgId, id, true), 'dashboard');
      const changes = { widgets: [...locked.widgets, checked] };
      return found(await updateDashboard(tx, orgId, id, changes, this.ctx.clock.now()), 'dashboard');
    });
  }

  /** Every widget's current result, each read as the project's read-only role. */
  async data(orgId: string, id: string): Promise<DashboardData> {
    return this.dataOf(orgId, await this.get(orgId, id));
  }

  async dataOf(orgId: string, dashboard: Dashboard): Promise<DashboardData> {
    const refreshedAt = this.ctx.clock.now().toISOString();
    const tables = await this.queries.tables(orgId, dashboard.projectId);
    const widgets = await Promise.all(
      dashboard.widgets.map((widget) => this.readers.perOrganization.run(orgId, () => this.queries.run(tables, widget))),
    );
    return { dashboardId: dashboard.id, refreshedAt, widgets };
  }

  private async widgetFromQuery(
    orgId: string,
    dashboard: Dashboard,
    input: Extract<AddWidget, { fromQueryId: string }>,
  ): Promise<WidgetInput> {
    const query = await findQuery(this.ctx.db, orgId, input.fromQueryId);
    if (!query) throw invalid('fromQueryId', 'names no query of this organization');
    if (query.projectId !== dashboard.projectId) throw invalid('fromQueryId', "is a question about another project than the dashboard's");
    if (query.sql === null) throw invalid('fromQueryId', 'is an answer that read no data (it has no SQL)');
    return { title: input.title ?? query.question.slice(0, 200), kind: input.kind ?? 'table', query: { sql: query.sql } };
  }

  private async checkedWidgets(orgId: string, projectId: string, inputs: WidgetInput[], field: string): Promise<Widget[]> {
    if (inputs.length === 0) return [];
    const tables = await this.queries.tables(orgId, projectId);
    const at = this.ctx.clock.now().getTime();
    const widgets: Widget[] = [];
    for (const [index, input] of inputs.entries()) {
      await this.queries.check(tables, input, field === 'body' ? 'query' : `${field}[${index}].query`);
      widgets.push({ id: newId('widget', at), title: input.title, kind: input.kind, query: input.query });
    }
    return widgets;
  }
}
