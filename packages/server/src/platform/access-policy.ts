import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../modules/users/schema.js';
import type { Caller } from './auth.js';
import { ApiError } from './errors.js';

/**
 * Who may do what, declared once for every route under /api/v1 (REST routes written by any
 * module, and the console through them):
 * - `viewer`, `member`, `admin`: the least role a session needs; API keys act as their organization
 *   and pass;
 * - `adminSession`: admin sessions only (API keys are managed by people, never by a key);
 * - `session`: any session, never an API key (the session's own routes).
 * The first rule whose method and path match decides; otherwise reading needs `viewer` and
 * changing anything needs `member`.
 */
type Rule = 'viewer' | 'member' | 'admin' | 'adminSession' | 'session';

interface PolicyEntry {
  writes: boolean;
  path: RegExp;
  rule: Rule;
}

const read = false;
const write = true;
const any = (path: RegExp, rule: Rule): PolicyEntry[] => [
  { writes: read, path, rule },
  { writes: write, path, rule },
];

export const accessPolicy: PolicyEntry[] = [
  ...any(/^\/api-keys(\/|$)/, 'adminSession'),
  ...any(/^\/session$/, 'session'),
  { writes: write, path: /^\/users(\/|$)/, rule: 'admin' },
  { writes: write, path: /^\/webhooks(\/|$)/, rule: 'admin' },
  { writes: write, path: /^\/connections\/:id\/import$/, rule: 'member' },
  { writes: write, path: /^\/connections(\/|$)/, rule: 'admin' },
  // Which sites may embed is the organization's security setting; dashboards and embed tokens
  // follow the default (viewers read, members create and revoke).
  { writes: write, path: /^\/embed\/settings$/, rule: 'admin' },
];

const rank: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };
const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function ruleFor(method: string, path: string): Rule {
  const writes = !readOnlyMethods.has(method);
  return accessPolicy.find((entry) => entry.writes === writes && entry.path.test(path))?.rule ?? (writes ? 'member' : 'viewer');
}

/** Why the caller may not use the route, or undefined when it may. */
export function refusal(caller: Caller, rule: Rule): string | undefined {
  if (caller.kind === 'apiKey') {
    if (rule === 'adminSession') return 'API keys are managed in the console by an admin; an API key cannot manage keys.';
    if (rule === 'session') return 'This route belongs to a console session, not to an API key.';
    return undefined;
  }
  const needed: Role = rule === 'adminSession' ? 'admin' : rule === 'session' ? 'viewer' : rule;
  if (rank[caller.role] >= rank[needed]) return undefined;
  return `Your role (${caller.role}) cannot do this; it needs ${needed === 'admin' ? 'an admin' : `a ${needed}`}. Ask an admin of your organization.`;
}

/**
 * Applies the policy to every route of the context (after authentication has set the caller). The
 * rule of each route is found once and kept: the policy's patterns are not run per request.
 */
export function enforceAccessPolicy(app: FastifyInstance, prefix: string): void {
  const rules = new Map<string, Rule>();
  const ruleOf = (method: string, url: string): Rule => {
    const key = `${method} ${url}`;
    let rule = rules.get(key);
    if (rule === undefined) rules.set(key, (rule = ruleFor(method, url.slice(prefix.length))));
    return rule;
  };
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const url = request.routeOptions.url;
    const why = url === undefined ? undefined : refusal(request.caller, ruleOf(request.method, url));
    done(why ? new ApiError('FORBIDDEN', why) : undefined);
  });
}
