import { expect } from 'vitest';

/**
 * Successes per one-minute window, keyed by the X-RateLimit-Reset every answer carries. A burst
 * usually falls in one window; if it straddles a minute boundary, each window is checked on its own.
 */
function successesPerWindow(responses: { status: number; headers: Headers }[]): Map<string, { ok: number; total: number }> {
  const windows = new Map<string, { ok: number; total: number }>();
  for (const response of responses) {
    expect([200, 429]).toContain(response.status);
    const reset = response.headers.get('x-ratelimit-reset')!;
    const window = windows.get(reset) ?? { ok: 0, total: 0 };
    window.total += 1;
    if (response.status === 200) window.ok += 1;
    windows.set(reset, window);
  }
  return windows;
}

/** In every window the answers fall in: exactly `limit` accepted, or all of them when fewer came. */
export function expectExactly(limit: number, responses: { status: number; headers: Headers }[]): void {
  for (const { ok, total } of successesPerWindow(responses).values()) expect(ok).toBe(Math.min(limit, total));
}
