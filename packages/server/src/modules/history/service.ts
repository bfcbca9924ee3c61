import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { found } from '../../platform/errors.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import type { HistoryFilters, QueryRecord, QueryRecordWithRows } from './schema.js';
import { deleteQuery, findQuery, listQueries } from './store.js';

/** Questions already answered; new ones are written by the chat service when they finish. */
export class HistoryService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, filters: HistoryFilters, page: PageQuery): Promise<Page<QueryRecord>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listQueries(this.ctx.db, orgId, filters, window), window);
  }

  async get(orgId: string, id: string): Promise<QueryRecordWithRows> {
    return found(await findQuery(this.ctx.db, orgId, id), 'history entry');
  }

  async delete(orgId: string, id: string): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      const query = found(await deleteQuery(tx, orgId, id), 'history entry');
      await recordEvent(tx, this.ctx.clock, orgId, 'query.deleted', { id: query.id, projectId: query.projectId });
    });
  }
}
