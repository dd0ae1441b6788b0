/** Request quotas by plan (the specification's Limits table). Enterprise figures are set per account. */
export const PLANS = {
  free: { hourlyLimit: 1000, concurrency: 3 },
  developer: { hourlyLimit: 2000, concurrency: 10 },
  enterprise: { hourlyLimit: 100_000, concurrency: 100 },
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && Object.hasOwn(PLANS, value);
}
