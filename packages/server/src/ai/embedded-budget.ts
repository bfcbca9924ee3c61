import type { Clock } from '../platform/clock.js';

/**
 * PGlite cannot interrupt a running statement (WebAssembly has no timer signal), and while one
 * runs every other query of every organization waits. So there, before it runs, each statement's
 * estimate from the planner must fit what its question has left; a sort and aggregate over a
 * million rows costs about 150 000.
 */
export const embeddedStatementCost = 250_000;
/** The planner's estimates of all of one question's statements together. */
export const embeddedQuestionCost = 500_000;
/**
 * The planner does not see what functions cost on long texts, so the time a question's statements
 * actually took counts too: once it is spent, the question's next statements are refused.
 */
export const embeddedQuestionMs = 3_000;

export class OverBudget extends Error {}

/** A statement's estimate: the planner's own, and what it leaves out for the long values the statement reads (long-values-cost.ts). */
export interface StatementCost {
  planner: number;
  longValues: number;
}

/** What one question (or one dashboard widget) may still spend on the embedded database. */
export class EmbeddedBudget {
  private cost = 0;
  private ms = 0;

  constructor(private readonly clock: Clock) {}

  /** Runs `work` when a statement of estimated `estimate` fits what is left; else throws OverBudget, having run nothing. */
  async spend<T>(estimate: StatementCost, work: () => Promise<T>): Promise<T> {
    const cost = estimate.planner + estimate.longValues;
    if (this.ms >= embeddedQuestionMs) {
      throw new OverBudget(
        `Refused: this question's statements already took ${this.ms} ms of the embedded database, the most one question may; answer with what you have.`,
      );
    }
    const allowed = Math.min(embeddedStatementCost, embeddedQuestionCost - this.cost);
    if (cost > allowed) {
      const longValues = estimate.longValues >= 1 ? ` (${Math.round(estimate.longValues)} of them for the long values it reads)` : '';
      const advice = estimate.longValues > estimate.planner ? 'filter on short columns first, and read long values only in the final rows' : 'filter or aggregate before joining';
      throw new OverBudget(
        `Refused: this statement is estimated at ${Math.round(cost)} cost units${longValues}, over the ${Math.round(allowed)} ` +
          `this question has left on the embedded database; ${advice}.`,
      );
    }
    const started = this.clock.now().getTime();
    try {
      return await work();
    } finally {
      this.cost += cost;
      this.ms += this.clock.now().getTime() - started;
    }
  }
}
