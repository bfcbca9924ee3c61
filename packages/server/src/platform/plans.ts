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
