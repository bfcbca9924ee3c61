import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { single } from '../../platform/pagination.js';
import { NoContent, responses } from '../../platform/route-schemas.js';
import { AcceptLink, CurrentSession, LinkDetails, LinkToken, SignIn } from './schema.js';
import { type OpenedSession, type SessionService, sessionLifetimeMs } from './service.js';
import type { SessionGrant } from './store.js';

export const sessionCookieName = 'vigil_session';

/** The cookie's attributes: script cannot read it, other sites' forms and frames do not carry it. */
export function sessionCookie(siteUrl: string) {
  const options = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: siteUrl.startsWith('https:') };
  return {
    set(reply: FastifyReply, token: string) {
      reply.setCookie(sessionCookieName, token, { ...options, maxAge: sessionLifetimeMs / 1000 });
    },
    clear(reply: FastifyReply) {
      reply.clearCookie(sessionCookieName, options);
    },
  };
}

interface SessionRouteOptions {
  sessions: SessionService;
  siteUrl: string;
}

// The console's own routes: not part of the public API, so not in the OpenAPI document.
const hide = true;

function describe(grant: SessionGrant, csrfToken: string): CurrentSession {
  return {
    user: { id: grant.userId, email: grant.email, name: grant.name, role: grant.role },
    organization: { id: grant.orgId, name: grant.orgName, plan: grant.plan },
    csrfToken,
  };
}

/** Signing in and accepting a link: reached without a session or key. */
export const publicSessionRoutes: FastifyPluginAsyncTypebox<SessionRouteOptions> = async (app, { sessions, siteUrl }) => {
  const cookie = sessionCookie(siteUrl);
  const opened = (reply: FastifyReply, session: OpenedSession) => {
    cookie.set(reply, session.token);
    return { data: describe(session.grant, sessions.csrfToken(session.token)) };
  };

  app.post('/session', { schema: { hide, body: SignIn, response: responses({ 200: single(CurrentSession) }) } }, async (request, reply) =>
    opened(reply, await sessions.signIn(request.body, request.ip)),
  );

  app.post('/session/link', { schema: { hide, body: LinkToken, response: responses({ 200: single(LinkDetails) }) } }, async (request) => ({
    data: await sessions.describeLink(request.body.token, request.ip),
  }));

  app.post('/session/link/accept', { schema: { hide, body: AcceptLink, response: responses({ 200: single(CurrentSession) }) } }, async (request, reply) =>
    opened(reply, await sessions.acceptLink(request.body, request.ip)),
  );
};

/** The current session: reached only with one (see platform/access-policy.ts). */
export const currentSessionRoutes: FastifyPluginAsyncTypebox<SessionRouteOptions> = async (app, { sessions, siteUrl }) => {
  const cookie = sessionCookie(siteUrl);

  app.get('/session', { schema: { hide, response: responses({ 200: single(CurrentSession) }) } }, async (request) => {
    const token = request.cookies[sessionCookieName]!;
    const presented = await sessions.present(token);
    return { data: describe(presented!.grant, sessions.csrfToken(token)) };
  });

  app.delete('/session', { schema: { hide, response: responses({ 204: NoContent }) } }, async (request, reply) => {
    if (request.caller.kind === 'session') await sessions.signOut(request.caller.sessionId);
    cookie.clear(reply);
    return reply.status(204).send(null);
  });
};
