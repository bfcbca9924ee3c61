import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { type ExportFormat, contentTypeOf, openWriter } from '../../data/export-writers.js';
import { announceJob, type JobRunner, maxAttempts, periodically, runOneJob } from '../../data/jobs.js';
import type { ServiceContext } from '../../platform/context.js';
import { ApiError, conflict, found, invalid } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { statuses as alertStatuses } from '../alerts/schema.js';
import { findDataset } from '../datasets/store.js';
import { findProject } from '../projects/store.js';
import type { CreateExport, Export } from './schema.js';
import { alertsSource, datasetSource, type ExportSource, historySource } from './sources.js';
import {
  deleteFinishedExports,
  expiredFiles,
  type ExportRow,
  findExportRow,
  insertExport,
  listExports,
  markCompleted,
  markExportFailed,
  markFileRemoved,
  toExport,
} from './store.js';

export const exportLifetimeMs = 7 * 24 * 60 * 60 * 1000;
const exportJobs = { table: 'exports', key: 'id', state: 'status' };

export interface ExportFile {
  path: string;
  fileName: string;
  contentType: string;
}

const stamp = (at: Date) => at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

/** Exports are written by the worker, one file each under the data directory, kept for 7 days. */
export class ExportService implements JobRunner {
  readonly name = 'exports';
  private readonly sweepDue: () => boolean;

  constructor(private readonly ctx: ServiceContext) {
    this.sweepDue = periodically(ctx.clock, 10 * 60 * 1000);
  }

  private get directory(): string {
    return path.join(this.ctx.config.dataDir, 'exports');
  }

  private filePath(id: string, format: ExportFormat): string {
    return path.join(this.directory, `${id}.${format}`);
  }

  async list(orgId: string, page: PageQuery): Promise<Page<Export>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listExports(this.ctx.db, orgId, window), window);
  }

  async get(orgId: string, id: string): Promise<Export> {
    return toExport(found(await findExportRow(this.ctx.db, orgId, id), 'export'));
  }

  async create(orgId: string, input: CreateExport): Promise<Export> {
    const filters = input.filters ?? {};
    let projectId = input.projectId ?? null;
    if (input.resource === 'dataset') {
      if (!input.datasetId) throw invalid('datasetId', 'is required to export a dataset');
      const dataset = found(await findDataset(this.ctx.db, orgId, input.datasetId), 'dataset');
      if (dataset.status !== 'ready') throw conflict(`The dataset is ${dataset.status}; it can be exported once it is ready.`);
      projectId = dataset.projectId;
    } else {
      if (input.datasetId) throw invalid('datasetId', `is only for resource "dataset"`);
      if (projectId) found(await findProject(this.ctx.db, orgId, projectId), 'project');
      if (input.resource === 'alerts' && filters.status && !(alertStatuses as readonly string[]).includes(filters.status)) {
        throw invalid('filters.status', `must be one of ${alertStatuses.join(', ')}`);
      }
    }
    const at = this.ctx.clock.now();
    const id = newId('export', at.getTime());
    return this.ctx.db.transaction(async (tx) => {
      const created = await insertExport(tx, orgId, { id, resource: input.resource, format: input.format, projectId, datasetId: input.datasetId ?? null, filters }, at);
      await announceJob(tx);
      return created;
    });
  }

  /** The finished file of a completed export that has not expired. */
  async download(orgId: string, id: string): Promise<ExportFile> {
    const row = found(await findExportRow(this.ctx.db, orgId, id), 'export');
    if (row.status !== 'completed') throw conflict(`The export is ${row.status}; its file can be downloaded once it is completed.`);
    if (row.file_removed_at || (row.expires_at && row.expires_at <= this.ctx.clock.now())) {
      throw new ApiError('NOT_FOUND', `The export's file expired on ${row.expires_at?.toISOString()}; create the export again.`);
    }
    return { path: this.filePath(row.id, row.format), fileName: row.file_name!, contentType: contentTypeOf[row.format] };
  }

  async runNext(): Promise<boolean> {
    if (this.sweepDue()) await this.sweep();
    return runOneJob<ExportRow & Record<string, unknown>>(this.ctx.db, this.ctx.clock, exportJobs, (job) => this.run(job));
  }

  private async run(job: ExportRow): Promise<void> {
    const file = this.filePath(job.id, job.format);
    try {
      if (job.attempts > maxAttempts) throw new Error(`The export was given up after ${maxAttempts} attempts that did not finish.`);
      const { source, title } = await this.sourceOf(job);
      await mkdir(this.directory, { recursive: true });
      const writer = await openWriter(job.format, file, source.columns, title);
      let rowCount = 0;
      for await (const rows of source.batches) {
        await writer.write(rows);
        rowCount += rows.length;
      }
      const sizeBytes = await writer.close();
      const at = this.ctx.clock.now();
      const fileName = `${title}-${stamp(at)}.${job.format}`;
      await markCompleted(this.ctx.db, job.id, { fileName, sizeBytes, rowCount, expiresAt: new Date(at.getTime() + exportLifetimeMs) }, at);
    } catch (error) {
      await rm(file, { force: true });
      await markExportFailed(this.ctx.db, job.id, error instanceof Error ? error.message : String(error), this.ctx.clock.now());
    }
  }

  private async sourceOf(job: ExportRow): Promise<{ source: ExportSource; title: string }> {
    const scope = { orgId: job.org_id, projectId: job.project_id, filters: job.filters };
    switch (job.resource) {
      case 'alerts':
        return { source: alertsSource(this.ctx.db, scope), title: 'alerts' };
      case 'history':
        return { source: historySource(this.ctx.db, scope), title: 'history' };
      case 'dataset': {
        const dataset = await findDataset(this.ctx.db, job.org_id, job.dataset_id ?? '');
        if (!dataset) throw new Error('The dataset was deleted before the export ran.');
        if (dataset.status !== 'ready') throw new Error(`The dataset is ${dataset.status}.`);
        return { source: datasetSource(this.ctx.db, dataset), title: dataset.tableName };
      }
    }
  }

  /** Deletes the files of exports older than 7 days; their rows stay, marked expired. */
  async sweep(): Promise<number> {
    const at = this.ctx.clock.now();
    const expired = await expiredFiles(this.ctx.db, at);
    for (const { id, format } of expired) {
      await rm(this.filePath(id, format), { force: true });
      await markFileRemoved(this.ctx.db, id, at);
    }
    return expired.length;
  }

  /** Deletes up to `limit` finished exports created before `before`, with any file left; how many. */
  async deleteFinished(before: Date, limit: number): Promise<number> {
    const deleted = await deleteFinishedExports(this.ctx.db, before, this.ctx.clock.now(), limit);
    for (const { id, format } of deleted) await rm(this.filePath(id, format), { force: true });
    return deleted.length;
  }
}
