import { type Queryable, loadingDb } from '../../db/connect.js';
import { type ColumnType, columnTypes } from '../../data/column-types.js';
import { badFile, limitBytes, peek } from '../../data/file-problems.js';
import { alertsViewName } from '../../ai/project-reader.js';
import { firstFree, tableIdentifier } from '../../data/identifiers.js';
import { dropTable } from '../../data/ingest.js';
import type { IngestJob } from '../../data/ingest-messages.js';
import { ingestThreads } from '../../data/ingest-thread.js';
import { type JobRunner, periodically } from '../../data/jobs.js';
import { readRows } from '../../data/table-reader.js';
import { spoolDirectory } from '../../data/upload-spool.js';
import { recordEvent } from '../../events/outbox.js';
import { ConcurrencyLimit, NoTurnInTime } from '../../platform/concurrency-limit.js';
import type { ServiceContext } from '../../platform/context.js';
import { conflict, found, invalid, RetryLater } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { projectSchemaName } from '../../platform/project-schema.js';
import { findProject } from '../projects/store.js';
import type { Dataset, DatasetSource } from './schema.js';
import { abandonedUploads, deleteDatasetById, deleteDatasetRow, findDataset, insertDataset, listDatasets, markReady, tableNamesLike } from './store.js';

export interface Upload {
  body: AsyncIterable<Buffer>;
  fileName?: string;
  contentType?: string;
  name?: string;
  sheet?: string;
  /** "column:type,column:type" */
  types?: string;
}

const xlsxContentType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const zipMagic = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const oleMagic = Buffer.from([0xd0, 0xcf, 0x11, 0xe0]);

function parseTypes(spec: string | undefined): Record<string, ColumnType> {
  const types: Record<string, ColumnType> = {};
  for (const part of (spec ?? '').split(',')) {
    if (part.trim() === '') continue;
    const at = part.lastIndexOf(':');
    const column = part.slice(0, at).trim();
    const type = part.slice(at + 1).trim() as ColumnType;
    if (at <= 0 || !columnTypes.includes(type)) {
      throw invalid('types', `must be "column:type" pairs with a type among ${columnTypes.join(', ')}; "${part}" is not`);
    }
    types[column] = type;
  }
  return types;
}

function datasetName(upload: Upload): string {
  const fromFile = upload.fileName?.replace(/\.[^.]*$/, '').trim();
  return upload.name ?? (fromFile || 'dataset');
}

export interface RowsPageResult {
  data: Record<string, unknown>[];
  meta: Page<never>['meta'];
}

const rowCursor = (rowId: number) => Buffer.from(`row:${rowId}`, 'utf8').toString('base64url');

function afterRow(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^row:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || rowCursor(Number(match[1])) !== cursor) throw invalid('cursor', 'is not a cursor this API returned');
  return Number(match[1]);
}

/** An upload still `importing` after this long lost its server mid-way: the sweep removes it. */
const abandonedAfterMs = 6 * 60 * 60 * 1000;
/** What a 429 for an upload that got no turn in time asks the client to wait before sending it again. */
const uploadRetryAfterSeconds = 5;

export class DatasetService implements JobRunner {
  readonly name = 'datasets';
  private readonly sweepDue: () => boolean;
  /**
   * Each upload loading takes a thread, its memory and a stream of COPY batches on the pool's
   * connections: an organization sending many at once waits for its own turns, not the others.
   */
  private readonly loadingTurns: ConcurrencyLimit;

  constructor(private readonly ctx: ServiceContext) {
    this.sweepDue = periodically(ctx.clock, 10 * 60 * 1000);
    const { perOrganization, maxWaitMs } = ctx.config.uploads;
    this.loadingTurns = new ConcurrencyLimit(perOrganization, { ms: maxWaitMs, waitingFor: 'upload slot of the organization' });
  }

  /** Never has a job of its own; from the worker loop it sweeps abandoned uploads now and then. */
  async runNext(): Promise<boolean> {
    if (this.sweepDue()) await this.sweepAbandonedUploads();
    return false;
  }

  /** Removes uploads whose server stopped while reading them (their rows and table). */
  async sweepAbandonedUploads(): Promise<number> {
    const before = new Date(this.ctx.clock.now().getTime() - abandonedAfterMs);
    const abandoned = await abandonedUploads(this.ctx.db, before);
    for (const dataset of abandoned) {
      await this.ctx.db.transaction(async (tx) => {
        await deleteDatasetById(tx, dataset.id);
        await dropTable(tx, projectSchemaName(dataset.projectId), dataset.tableName);
      });
    }
    return abandoned.length;
  }

  get maxUploadBytes(): number {
    return this.ctx.config.maxUploadBytes;
  }

  get uploadsPerOrganization(): number {
    return this.ctx.config.uploads.perOrganization;
  }

  async list(orgId: string, projectId: string | undefined, page: PageQuery): Promise<Page<Dataset>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listDatasets(this.ctx.db, orgId, projectId, window), window);
  }

  async get(orgId: string, id: string): Promise<Dataset> {
    return found(await this.find(orgId, id), 'dataset');
  }

  find(orgId: string, id: string): Promise<Dataset | undefined> {
    return findDataset(this.ctx.db, orgId, id);
  }

  /** Streams a CSV or .xlsx file into a new dataset: 201 ready, or an error and nothing left behind. */
  async upload(orgId: string, projectId: string, upload: Upload): Promise<Dataset> {
    const types = parseTypes(upload.types);
    found(await findProject(this.ctx.db, orgId, projectId), 'project');
    return this.loadingTurns.run(orgId, () => this.load(orgId, projectId, upload, types)).catch((error: unknown) => {
      if (!(error instanceof NoTurnInTime)) throw error;
      const perOrganization = this.uploadsPerOrganization;
      const loading = `${perOrganization} upload${perOrganization === 1 ? '' : 's'}`;
      throw new RetryLater('RATE_LIMITED', `This organization has ${loading} loading already, and none finished within ${error.waitedMs} ms; send the file again in a moment.`, uploadRetryAfterSeconds);
    });
  }

  private async load(orgId: string, projectId: string, upload: Upload, types: Record<string, ColumnType>): Promise<Dataset> {
    const { head, all } = await peek(limitBytes(upload.body, this.maxUploadBytes));
    if (head.length === 0) throw badFile('The file is empty.');
    const kind = this.kindOf(upload, head);
    const dataset = await this.reserve(orgId, projectId, datasetName(upload), 'upload', null);
    const job: IngestJob = { kind, sheet: upload.sheet, spoolDir: spoolDirectory(this.ctx.config.dataDir), pinnedTypes: types, schema: projectSchemaName(projectId), table: dataset.tableName };
    const finished = await ingestThreads.run(job, all, loadingDb(this.ctx.db)).catch(async (error: unknown) => {
      await deleteDatasetById(this.ctx.db, dataset.id);
      throw error;
    });
    const ready = await this.ctx.db.transaction(async (tx) => {
      const marked = await markReady(tx, dataset.id, finished, this.ctx.clock.now());
      if (marked) await recordEvent(tx, this.ctx.clock, orgId, 'csv.uploaded', marked);
      return marked;
    });
    if (ready) return ready;
    await dropTable(this.ctx.db, projectSchemaName(projectId), dataset.tableName);
    throw conflict('The dataset was deleted while the file was uploading.');
  }

  private kindOf(upload: Upload, head: Buffer): IngestJob['kind'] {
    const saysExcel = upload.contentType === xlsxContentType || /\.xlsx$/i.test(upload.fileName ?? '');
    if (head.subarray(0, 4).equals(oleMagic)) throw badFile('Old .xls workbooks are not supported: save the file as .xlsx or CSV.');
    if (head.subarray(0, 4).equals(zipMagic)) return 'xlsx';
    if (saysExcel) throw badFile('The file is not an Excel workbook (.xlsx).');
    return 'csv';
  }

  /** A new `importing` dataset whose table name, derived from its name, is free in the project. */
  async reserve(
    orgId: string,
    projectId: string,
    name: string,
    source: DatasetSource,
    connectionId: string | null,
    db: Queryable = this.ctx.db,
  ): Promise<Dataset> {
    const base = tableIdentifier(name);
    for (;;) {
      const taken = await tableNamesLike(db, projectId, base);
      const at = this.ctx.clock.now();
      const input = { id: newId('dataset', at.getTime()), projectId, name, tableName: firstFree(base, (c) => taken.has(c) || c === alertsViewName), source, connectionId };
      const dataset = await insertDataset(db, orgId, input, at);
      if (dataset) return dataset;
    }
  }

  async rows(orgId: string, id: string, page: PageQuery): Promise<RowsPageResult> {
    const dataset = await this.get(orgId, id);
    if (dataset.status !== 'ready') throw conflict(`The dataset is ${dataset.status}; its rows can be read once it is ready.`);
    const limit = page.limit ?? 20;
    const rows = await readRows(
      this.ctx.db,
      { schema: projectSchemaName(dataset.projectId), table: dataset.tableName, columns: dataset.columns },
      afterRow(page.cursor),
      limit + 1,
    );
    const hasMore = rows.length > limit;
    const data = (hasMore ? rows.slice(0, limit) : rows).map(({ _row_id: _, ...values }) => values);
    const last = rows[limit - 1];
    return { data, meta: { limit, hasMore, nextCursor: hasMore && last ? rowCursor(Number(last._row_id)) : null } };
  }

  async delete(orgId: string, id: string): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      const dataset = found(await deleteDatasetRow(tx, orgId, id), 'dataset');
      await dropTable(tx, projectSchemaName(dataset.projectId), dataset.tableName);
    });
  }
}
