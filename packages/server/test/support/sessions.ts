import type { HttpResult, TestApp } from './app.js';

/** A person signed in to the console: their cookie and CSRF token, and calls made with them. */
export interface SignedIn {
  cookie: string;
  csrfToken: string;
  setCookie: string;
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>;
}

export const linkToken = (inviteUrl: string): string => new URL(inviteUrl).hash.replace(/^#token=/, '');

function signedIn(t: TestApp, response: HttpResult<{ data: { csrfToken: string } }>): SignedIn {
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0];
  const csrfToken = response.body.data.csrfToken;
  return {
    cookie,
    csrfToken,
    setCookie,
    call: (method, path, body, headers = {}) =>
      t.request(method, path, { body, headers: { cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': csrfToken }), ...headers } }),
  };
}

/** Accepts a one-time link with a password, as the welcome page does; throws unless it worked. */
export async function acceptLink(t: TestApp, inviteUrl: string, password = 'correct horse battery'): Promise<SignedIn> {
  const response = await t.request<{ data: { csrfToken: string } }>('POST', 'session/link/accept', { body: { token: linkToken(inviteUrl), password } });
  if (response.status !== 200) throw new Error(`link not accepted: ${response.status} ${JSON.stringify(response.body)}`);
  return signedIn(t, response);
}

export async function signIn(t: TestApp, email: string, password = 'correct horse battery'): Promise<SignedIn> {
  const response = await t.request<{ data: { csrfToken: string } }>('POST', 'session', { body: { email, password } });
  if (response.status !== 200) throw new Error(`not signed in: ${response.status} ${JSON.stringify(response.body)}`);
  return signedIn(t, response);
}
