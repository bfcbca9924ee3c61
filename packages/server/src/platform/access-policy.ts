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
 * changing anything needs `member`. A rule with `when` applies on top, to the requests whose
 * body does what it names (checked once the body is parsed, on its routes only).
 */
type Rule = 'viewer' | 'member' | 'admin' | 'adminSession' | 'session';

interface PolicyEntry {
  writes: boolean;
  path: RegExp;
  rule: Rule;
  when?: { action: string; test(body: unknown): boolean };
}

const asksForAdmin = (body: unknown): boolean => (body as { role?: unknown } | undefined)?.role === 'admin';

const read = false;
const write = true;
const any = (path: RegExp, rule: Rule): PolicyEntry[] => [
  { writes: read, path, rule },
  { writes: write, path, rule },
];

export const accessPolicy: PolicyEntry[] = [
  ...any(/^\/api-keys(\/|$)/, 'adminSession'),
  ...any(/^\/session$/, 'session'),
  // A leaked key must never become a person with keys of their own.
  {
    writes: write,
    path: /^\/users(\/:id)?$/,
    rule: 'adminSession',
    when: { action: 'Making an admin (inviting one, or changing a role to admin)', test: asksForAdmin },
  },
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

const routeRules = accessPolicy.filter((entry) => entry.when === undefined);
const bodyRules = accessPolicy.filter((entry) => entry.when !== undefined);

export function ruleFor(method: string, path: string): Rule {
  const writes = !readOnlyMethods.has(method);
  return routeRules.find((entry) => entry.writes === writes && entry.path.test(path))?.rule ?? (writes ? 'member' : 'viewer');
}

/** Why the caller may not use the route, or undefined when it may; `action` names what a body-dependent rule guards. */
export function refusal(caller: Caller, rule: Rule, action?: string): string | undefined {
  if (caller.kind === 'apiKey') {
    if (rule === 'adminSession' && action) return `${action} needs an admin signed in to the console; an API key cannot do it.`;
    if (rule === 'adminSession') return 'API keys are managed in the console by an admin; an API key cannot manage keys.';
    if (rule === 'session') return 'This route belongs to a console session, not to an API key.';
    return undefined;
  }
  const needed: Role = rule === 'adminSession' ? 'admin' : rule === 'session' ? 'viewer' : rule;
  if (rank[caller.role] >= rank[needed]) return undefined;
  const what = action ?? 'this';
  return `Your role (${caller.role}) cannot do ${what.charAt(0).toLowerCase()}${what.slice(1)}; it needs ${needed === 'admin' ? 'an admin' : `a ${needed}`}. Ask an admin of your organization.`;
}

/**
 * Applies the policy to every route of the context (after authentication has set the caller). The
 * rule of each route is found once, when the route is added, and checked by a hook of that route's
 * own, which runs after the context's hooks (authentication): nothing is looked up per request. The
 * body-dependent rules run once the body is parsed, only on the routes they name.
 */
export function enforceAccessPolicy(app: FastifyInstance, prefix: string): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const path = route.url.slice(prefix.length);
    const rules = new Map(methods.map((method) => [method, ruleFor(method, path)]));
    const admit = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      const why = refusal(request.caller, rules.get(request.method)!);
      done(why ? new ApiError('FORBIDDEN', why) : undefined);
    };
    route.onRequest = [...[route.onRequest ?? []].flat(), admit];
    const entries = bodyRules.filter((entry) => methods.some((method) => entry.writes === !readOnlyMethods.has(method)) && entry.path.test(path));
    if (entries.length === 0) return;
    const check = async (request: FastifyRequest) => {
      for (const entry of entries) {
        if (!entry.when!.test(request.body)) continue;
        const why = refusal(request.caller, entry.rule, entry.when!.action);
        if (why) throw new ApiError('FORBIDDEN', why);
      }
    };
    // Before validation and the Idempotency-Key (preHandler): a refusal never takes the key.
    route.preValidation = [check, ...[route.preValidation ?? []].flat()];
  });
}
