/**
 * The console's one request path: the REST API under /api/v1 with the session cookie, and the
 * session's CSRF token on every write (the same routes and rules as an API key's calls).
 */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

let csrfToken = '';

export function useCsrfToken(token: string): void {
  csrfToken = token;
}

export type { List, Session } from './api-types';

/** A session (or sign-in) past its limit: the server says how long to wait. */
const rateLimited = (response: Response) =>
  `Too many requests from this session: wait ${response.headers.get('retry-after') ?? 'a few'} seconds, then try again.`;

async function failureOf(response: Response): Promise<ApiFailure> {
  const body = (await response.json().catch(() => null)) as { error?: string; code?: string; details?: ApiFailure['details'] } | null;
  const message = body?.error ?? (response.status === 429 ? rateLimited(response) : `The server answered ${response.status}. Try again in a moment.`);
  return new ApiFailure(message, response.status, body?.code ?? 'UNKNOWN', body?.details);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1/${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiFailure('The server cannot be reached. Check your connection and try again.', 0, 'NETWORK');
  }
  if (!response.ok) {
    const failure = await failureOf(response);
    if (response.status === 401 && path !== 'session') window.dispatchEvent(new CustomEvent('vigil:signed-out'));
    throw failure;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});

/** An upload with progress (fetch cannot report it): multipart to the same API. */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `/api/v1/${path}`);
    request.setRequestHeader('x-csrf-token', csrfToken);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onerror = () => reject(new ApiFailure('The upload was interrupted. Try again.', 0, 'NETWORK'));
    request.onload = () => {
      const body = JSON.parse(request.responseText || '{}') as { error?: string; code?: string } & T;
      if (request.status >= 200 && request.status < 300) resolve(body);
      else reject(new ApiFailure(body.error ?? `The server answered ${request.status}.`, request.status, body.code ?? 'UNKNOWN'));
    };
    request.send(form);
  });
}
