import { dropProjectReader } from '../../ai/project-reader.js';
import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { found } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { dropProjectSchema } from '../datasets/store.js';
import type { CreateProject, Project, UpdateProject } from './schema.js';
import { deleteProject, findProject, findProjects, insertProject, listProjects, updateProject } from './store.js';

export class ProjectService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, page: PageQuery): Promise<Page<Project>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listProjects(this.ctx.db, orgId, window), window);
  }

  async get(orgId: string, id: string): Promise<Project> {
    return found(await findProject(this.ctx.db, orgId, id), 'project');
  }

  /** Many at once (GraphQL's batched loads); missing or foreign ids are left out. */
  getMany(orgId: string, ids: readonly string[]): Promise<Project[]> {
    return findProjects(this.ctx.db, orgId, ids);
  }

  async create(orgId: string, input: CreateProject): Promise<Project> {
    return this.ctx.db.transaction(async (tx) => {
      const at = this.ctx.clock.now();
      const project = await insertProject(tx, orgId, newId('project', at.getTime()), input, at);
      await recordEvent(tx, this.ctx.clock, orgId, 'project.created', project);
      return project;
    });
  }

  async update(orgId: string, id: string, input: UpdateProject): Promise<Project> {
    return this.ctx.db.transaction(async (tx) => {
      const project = found(await updateProject(tx, orgId, id, input, this.ctx.clock.now()), 'project');
      await recordEvent(tx, this.ctx.clock, orgId, 'project.updated', project);
      return project;
    });
  }

  /** Deleting a project deletes its alerts and datasets with it; one project.deleted event announces all. */
  async delete(orgId: string, id: string): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      const project = found(await deleteProject(tx, orgId, id), 'project');
      await dropProjectSchema(tx, id);
      await dropProjectReader(tx, id);
      await recordEvent(tx, this.ctx.clock, orgId, 'project.deleted', project);
    });
  }
}
