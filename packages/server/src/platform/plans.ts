export const plans = ['free', 'starter', 'pro', 'team', 'business', 'enterprise'] as const;
export type Plan = (typeof plans)[number];

interface PlanRules {
  apiAccess: boolean;
  paid: boolean;
  requestsPerMinute: number;
}

export const planRules: Record<Plan, PlanRules> = {
  free: { apiAccess: false, paid: false, requestsPerMinute: 0 },
  starter: { apiAccess: false, paid: true, requestsPerMinute: 0 },
  pro: { apiAccess: false, paid: true, requestsPerMinute: 0 },
  team: { apiAccess: false, paid: true, requestsPerMinute: 0 },
  business: { apiAccess: true, paid: true, requestsPerMinute: 120 },
  enterprise: { apiAccess: true, paid: true, requestsPerMinute: 600 },
};

export function isPlan(value: string): value is Plan {
  return (plans as readonly string[]).includes(value);
}

export function requestsPerMinute(plan: Plan, customLimit: number | null): number {
  return customLimit ?? planRules[plan].requestsPerMinute;
}

/** What an organization may consume per calendar month (UTC) or keep stored at once; null is unlimited. */
export interface UsageLimits {
  aiQuestionsPerMonth: number | null;
  tokensPerMonth: number | null;
  datasets: number | null;
  rowsStored: number | null;
  exportsPerMonth: number | null;
}

export const usageLimits: Record<Plan, UsageLimits> = {
  free: { aiQuestionsPerMonth: 50, tokensPerMonth: 100_000, datasets: 3, rowsStored: 10_000, exportsPerMonth: 10 },
  starter: { aiQuestionsPerMonth: 500, tokensPerMonth: 1_000_000, datasets: 10, rowsStored: 100_000, exportsPerMonth: 100 },
  pro: { aiQuestionsPerMonth: 2_000, tokensPerMonth: 5_000_000, datasets: 50, rowsStored: 1_000_000, exportsPerMonth: 500 },
  team: { aiQuestionsPerMonth: 5_000, tokensPerMonth: 15_000_000, datasets: 200, rowsStored: 5_000_000, exportsPerMonth: 2_000 },
  business: { aiQuestionsPerMonth: 20_000, tokensPerMonth: 50_000_000, datasets: 1_000, rowsStored: 50_000_000, exportsPerMonth: 10_000 },
  enterprise: { aiQuestionsPerMonth: null, tokensPerMonth: null, datasets: null, rowsStored: null, exportsPerMonth: null },
};
