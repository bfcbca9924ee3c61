import { type Queryable, loadingDb } from '../../db/connect.js';
import { quoteIdentifier } from '../../data/identifiers.js';
import { dropTable, ingest } from '../../data/ingest.js';
import { announceJob, type JobRunner, maxAttempts, runOneJob } from '../../data/jobs.js';
import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { conflict, found, invalid } from '../../platform/errors.js';
import { countRowsLoaded } from '../../platform/metrics.js';
import { projectSchemaName } from '../../platform/project-schema.js';
import type { Dataset } from '../datasets/schema.js';
import type { DatasetService } from '../datasets/service.js';
import { findDataset, markFailed, markReady, markReimporting } from '../datasets/store.js';
import { findProject } from '../projects/store.js';
import { deleteImportJob, type ImportJobRow, importJobs, insertImportJob } from './import-store.js';
import type { ImportRequest } from './schema.js';
import { type ConnectionService, driverFor, sourceErrorMessage } from './service.js';
import { cappedSelect, quotedTable, singleSelect } from './source-query.js';
import { findConnectionRow } from './store.js';

/** Where a replacement loads while the old rows stay readable; swapped in at the end. */
const stagingTable = (table: string) => `${table}__next`;

/** Imports from a connection into a project dataset: accepted at once, run by the worker. */
export class ImportService implements JobRunner {
  readonly name = 'imports';

  constructor(
    private readonly ctx: ServiceContext,
    private readonly connections: ConnectionService,
    private readonly datasets: DatasetService,
  ) {}

  async request(orgId: string, connectionId: string, input: ImportRequest): Promise<Dataset> {
    if ((input.table === undefined) === (input.query === undefined)) throw invalid('table', 'or query must be given, and not both');
    const connection = await this.connections.row(orgId, connectionId);
    if (input.table !== undefined) quotedTable(connection.db_type, input.table);
    if (input.query !== undefined) singleSelect(input.query);
    found(await findProject(this.ctx.db, orgId, input.projectId), 'project');
    const name = input.name ?? input.table?.split('.').pop() ?? 'query';
    return this.ctx.db.transaction(async (tx) => {
      const dataset = input.datasetId
        ? await this.reimporting(tx, orgId, input.datasetId, input.projectId, connectionId)
        : await this.datasets.reserve(orgId, input.projectId, name, 'connection', connectionId, tx);
      const job = { datasetId: dataset.id, connectionId, table: input.table ?? null, query: input.query ?? null, replaces: input.datasetId !== undefined };
      await insertImportJob(tx, orgId, job, this.ctx.clock.now());
      await announceJob(tx);
      return dataset;
    });
  }

  private async reimporting(tx: Queryable, orgId: string, datasetId: string, projectId: string, connectionId: string): Promise<Dataset> {
    const existing = found(await findDataset(tx, orgId, datasetId), 'dataset');
    if (existing.projectId !== projectId) throw invalid('datasetId', 'belongs to another project than projectId');
    const dataset = await markReimporting(tx, existing.id, connectionId, this.ctx.clock.now());
    if (!dataset) throw conflict('The dataset is importing already; wait until it is ready or failed.');
    return dataset;
  }

  runNext(): Promise<boolean> {
    return runOneJob<ImportJobRow>(this.ctx.db, this.ctx.clock, importJobs, (job) => this.run(job));
  }

  private async run(job: ImportJobRow): Promise<void> {
    const dataset = await this.datasets.find(job.org_id, job.dataset_id);
    if (!dataset) return;
    const schema = projectSchemaName(dataset.projectId);
    const loadInto = job.replaces ? stagingTable(dataset.tableName) : dataset.tableName;
    // A previous attempt whose worker died may have left part of the table.
    await dropTable(this.ctx.db, schema, loadInto);
    if (job.attempts > maxAttempts) return this.fail(dataset, `The import was given up after ${maxAttempts} attempts that did not finish.`);
    const row = job.connection_id ? await findConnectionRow(this.ctx.db, job.org_id, job.connection_id) : undefined;
    if (!row) return this.fail(dataset, 'The connection was deleted before the import ran.');
    const maxRows = this.ctx.config.importMaxRows;
    let target;
    try {
      target = await this.connections.targetOf(row);
      const sql = cappedSelect(row.db_type, { table: job.source_table ?? undefined, query: job.source_query ?? undefined }, maxRows);
      const loaded = await driverFor(row.db_type).read(target, sql, (result) =>
        ingest(
          { kind: 'database', records: result.records, headers: result.headers, sourceTypes: result.types, maxRows },
          { db: loadingDb(this.ctx.db), schema, table: loadInto, countLoaded: countRowsLoaded },
        ),
      );
      const ready = await this.ctx.db.transaction(async (tx) => {
        const marked = await markReady(tx, dataset.id, loaded, this.ctx.clock.now());
        if (marked && job.replaces) await swapIn(tx, schema, loadInto, dataset.tableName);
        if (marked) await recordEvent(tx, this.ctx.clock, job.org_id, 'data.db_import', marked);
        await deleteImportJob(tx, dataset.id);
        return marked;
      });
      if (!ready) await dropTable(this.ctx.db, schema, loadInto);
      await this.connections.recordCheck(row, null);
    } catch (error) {
      await this.fail(dataset, sourceErrorMessage(error, target?.password ?? ''));
    }
  }

  /** A failed replacement keeps the old rows in the table; the dataset shows failed with the reason. */
  private async fail(dataset: Dataset, message: string): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      await markFailed(tx, dataset.id, message, this.ctx.clock.now());
      await deleteImportJob(tx, dataset.id);
    });
  }
}

/** Puts the freshly loaded table in the place of the old one, its primary key renamed to match. */
async function swapIn(tx: Queryable, schema: string, staging: string, table: string): Promise<void> {
  const at = (name: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  await dropTable(tx, schema, table);
  await tx.exec(
    `ALTER TABLE ${at(staging)} RENAME TO ${quoteIdentifier(table)};
     ALTER INDEX ${at(`${staging}_pkey`)} RENAME TO ${quoteIdentifier(`${table}_pkey`)}`,
  );
}
