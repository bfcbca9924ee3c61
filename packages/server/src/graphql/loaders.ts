import DataLoader from 'dataloader';
import type { Alert, AlertFilters } from '../modules/alerts/schema.js';
import type { Project } from '../modules/projects/schema.js';
import type { User } from '../modules/users/schema.js';
import type { PageQuery } from '../platform/pagination.js';
import type { Services } from '../services.js';

type ProjectAlertsQuery = { filters: Omit<AlertFilters, 'projectId'>; page: PageQuery };

function byId<T extends { id: string }>(items: T[], ids: readonly string[]): (T | undefined)[] {
  const found = new Map(items.map((item) => [item.id, item]));
  return ids.map((id) => found.get(id));
}

/**
 * Per-request batching of nested fields: every `Alert.project` of one response is one query, every
 * `Project.alerts` with the same arguments is one query, whatever the number of parents.
 */
export class Loaders {
  readonly project: DataLoader<string, Project | undefined>;
  readonly user: DataLoader<string, User | undefined>;
  private readonly projectAlerts = new Map<string, DataLoader<string, Alert[]>>();

  /**
   * `cache: false` for a subscription, which lives on: it still batches each event's loads, but
   * reads them afresh for the next event.
   */
  constructor(
    private readonly services: Services,
    private readonly orgId: string,
    private readonly options: { cache: boolean },
  ) {
    this.project = new DataLoader(async (ids) => byId(await services.projects.getMany(orgId, ids), ids), options);
    this.user = new DataLoader(async (ids) => byId(await services.users.getMany(orgId, ids), ids), options);
  }

  alertsOfProject(projectId: string, query: ProjectAlertsQuery): Promise<Alert[]> {
    const key = JSON.stringify(query);
    let loader = this.projectAlerts.get(key);
    if (!loader) {
      loader = new DataLoader(async (projectIds) => {
        const byProject = await this.services.alerts.listOfProjects(this.orgId, projectIds, query.filters, query.page);
        return projectIds.map((id) => byProject.get(id) ?? []);
      }, this.options);
      this.projectAlerts.set(key, loader);
    }
    return loader.load(projectId);
  }
}
