import type { ServiceContext } from '../../platform/context.js';
import { found, RetryLater } from '../../platform/errors.js';
import { requestsPerMinute, usageLimits } from '../../platform/plans.js';
import { findOrganization } from '../organizations/store.js';
import { UsageMeter } from './meter.js';
import type { Usage } from './schema.js';
import { type DayActivity, readDays, readMonthAi, readStored } from './store.js';

const activityFields = ['apiRequests', 'aiQuestions', 'tokens', 'exports', 'datasetsCreated', 'rowsImported'] as const;
type Activity = Omit<DayActivity, 'date'>;

/** The current billing period: the calendar month (UTC) that holds `now`. */
function billingMonth(now: Date): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

/** The month's AI allowance is used up; `retryAfter` is the seconds until the next month starts. */
export class AllowanceExceeded extends RetryLater {
  constructor(message: string, retryAfter: number) {
    super('RATE_LIMITED', message, retryAfter);
  }
}

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
    const { start, end } = billingMonth(now);
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

  /** Refuses a new AI question once this month's questions or tokens have reached the plan's allowance. */
  async assertAiAllowance(orgId: string): Promise<void> {
    const org = found(await findOrganization(this.ctx.db, orgId), 'organization');
    const { aiQuestionsPerMonth, tokensPerMonth } = usageLimits[org.plan];
    if (aiQuestionsPerMonth === null && tokensPerMonth === null) return;
    await this.meter.flush();
    const now = this.ctx.clock.now();
    const { start, end } = billingMonth(now);
    const used = await readMonthAi(this.ctx.db, orgId, start);
    const retryAfter = Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
    if (aiQuestionsPerMonth !== null && used.aiQuestions >= aiQuestionsPerMonth) {
      throw new AllowanceExceeded(`The ${org.plan} plan's ${aiQuestionsPerMonth} AI questions for this month are used up.`, retryAfter);
    }
    if (tokensPerMonth !== null && used.tokens >= tokensPerMonth) {
      throw new AllowanceExceeded(`The ${org.plan} plan's ${tokensPerMonth} AI tokens for this month are used up.`, retryAfter);
    }
  }

  close(): Promise<void> {
    return this.meter.close();
  }
}
