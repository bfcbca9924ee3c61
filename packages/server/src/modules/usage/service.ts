import type { ServiceContext } from '../../platform/context.js';
import { found } from '../../platform/errors.js';
import { requestsPerMinute, usageLimits } from '../../platform/plans.js';
import { findOrganization } from '../organizations/store.js';
import { UsageMeter } from './meter.js';
import type { Usage } from './schema.js';
import { type DayActivity, readDays, readStored } from './store.js';

const activityFields = ['apiRequests', 'aiQuestions', 'tokens', 'exports', 'datasetsCreated', 'rowsImported'] as const;
type Activity = Omit<DayActivity, 'date'>;

const zero = (): Activity => ({ apiRequests: 0, aiQuestions: 0, tokens: 0, exports: 0, datasetsCreated: 0, rowsImported: 0 });

export class UsageService {
  readonly meter: UsageMeter;

  constructor(private readonly ctx: ServiceContext) {
    this.meter = new UsageMeter(ctx.db);
  }

  /** The current calendar month (UTC), day by day up to today, with the plan's limits. */
  async current(orgId: string): Promise<Usage> {
    const org = found(await findOrganization(this.ctx.db, orgId), 'organization');
    // This process's pending counts first, so a caller sees its own requests; other processes' follow within seconds.
    await this.meter.flush();
    const now = this.ctx.clock.now();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const [active, stored] = await Promise.all([readDays(this.ctx.db, orgId, start, end), readStored(this.ctx.db, orgId)]);
    const byDate = new Map(active.map((day) => [day.date, day]));
    const days: DayActivity[] = [];
    const totals = zero();
    for (let day = start; day <= now; day = new Date(day.getTime() + 86_400_000)) {
      const date = day.toISOString().slice(0, 10);
      const activity = byDate.get(date) ?? { date, ...zero() };
      days.push(activity);
      for (const field of activityFields) totals[field] += activity[field];
    }
    return {
      orgId,
      plan: org.plan,
      period: { start: start.toISOString(), end: end.toISOString() },
      totals,
      stored,
      days,
      limits: { requestsPerMinute: requestsPerMinute(org.plan, org.rateLimitPerMinute), ...usageLimits[org.plan] },
    };
  }

  close(): Promise<void> {
    return this.meter.close();
  }
}
