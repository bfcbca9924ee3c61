import type { EmbeddedDashboard } from './generated/api.js';

export type { EmbeddedDashboard, WidgetResult } from './generated/api.js';

/** A failure the component shows as it is: `message` is a sentence for the person looking at the page. */
export class EmbedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export async function fetchDashboard(baseUrl: string, dashboardId: string, token: string, signal: AbortSignal): Promise<EmbeddedDashboard> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/embed/api/dashboards/${encodeURIComponent(dashboardId)}`, {
      headers: { authorization: `Bearer ${token}` },
      signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new EmbedError('NETWORK_ERROR', 'The dashboard could not be reached (network error). It will be retried.', null);
  }
  const body = (await response.json().catch(() => undefined)) as { data?: EmbeddedDashboard; error?: string; code?: string } | undefined;
  if (!response.ok || !body?.data) {
    throw new EmbedError(body?.code ?? 'HTTP_ERROR', body?.error ?? `The dashboard server answered ${response.status}.`, response.status);
  }
  return body.data;
}
