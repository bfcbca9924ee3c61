import type { ServiceContext } from '../../platform/context.js';
import { ApiError, found, invalid } from '../../platform/errors.js';
import { FreshCache } from '../../platform/fresh-cache.js';
import { newId } from '../../platform/ids.js';
import { type Page, pageWindow, toPage } from '../../platform/pagination.js';
import type { DashboardService } from '../dashboards/service.js';
import { findDashboard } from '../dashboards/store.js';
import {
  type CreateEmbedToken,
  type CreatedEmbedToken,
  type EmbeddedDashboard,
  type EmbedSettings,
  type EmbedToken,
  type EmbedTokenListQuery,
  embedTokenLifetime,
  type Theme,
  type UpdateEmbedSettings,
} from './schema.js';
import { findEmbedGrant, findEmbedSettings, insertEmbedToken, listEmbedTokens, revokeEmbedToken, saveEmbedSettings } from './store.js';
import { EmbedTokenSigner, type EmbedClaims } from './token-signer.js';

/** How stale a revocation or an origin list may be in another process. */
export const embedFreshnessMs = 1_000;

/**
 * How old an embedded dashboard's results may be. The embed API is public to whoever holds a
 * token (it travels in iframe URLs), so its viewers, however many, run each dashboard's widgets
 * at most once per this period per process: they cannot load the database for other tenants.
 */
export const embedResultsMaxAgeMs = 2_000;

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

export class EmbedService {
  private readonly signer: EmbedTokenSigner;
  private readonly grants: FreshCache<Awaited<ReturnType<typeof findEmbedGrant>>>;
  private readonly origins: FreshCache<string[]>;
  private readonly results: FreshCache<Omit<EmbeddedDashboard, 'theme'>>;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly dashboards: DashboardService,
  ) {
    this.signer = new EmbedTokenSigner(ctx.config.secretKey);
    this.grants = new FreshCache((tokenId) => findEmbedGrant(ctx.db, tokenId), embedFreshnessMs);
    this.origins = new FreshCache(async (orgId) => (await findEmbedSettings(ctx.db, orgId)).allowedOrigins, embedFreshnessMs);
    this.results = new FreshCache((key) => this.readFresh(...(key.split(' ') as [string, string])), embedResultsMaxAgeMs);
  }

  async createToken(orgId: string, input: CreateEmbedToken): Promise<CreatedEmbedToken> {
    const dashboard = found(await findDashboard(this.ctx.db, orgId, input.dashboardId), 'dashboard');
    const at = this.ctx.clock.now();
    const expiresAt = new Date(at.getTime() + (input.expiresInSeconds ?? embedTokenLifetime.defaultSeconds) * 1000);
    // JWT times are whole seconds: the stored expiry is the one the token carries.
    expiresAt.setUTCMilliseconds(0);
    const theme = input.theme ?? null;
    const record = await insertEmbedToken(this.ctx.db, orgId, { id: newId('embedToken', at.getTime()), dashboardId: dashboard.id, theme, expiresAt }, at);
    const token = await this.signer.sign({ tokenId: record.id, orgId, dashboardId: dashboard.id, theme, expiresAt }, at);
    return { ...record, token, embedUrl: this.embedUrl(dashboard.id, token, theme) };
  }

  embedUrl(dashboardId: string, token: string, theme: Theme | null): string {
    const url = new URL(`/embed/dashboards/${encodeURIComponent(dashboardId)}`, this.ctx.config.siteUrl);
    url.searchParams.set('token', token);
    if (theme) url.searchParams.set('theme', theme);
    return url.toString();
  }

  async listTokens(orgId: string, query: EmbedTokenListQuery): Promise<Page<EmbedToken>> {
    const window = pageWindow(query, orgId, this.ctx.config.secretKey);
    return toPage(await listEmbedTokens(this.ctx.db, orgId, query.dashboardId, window), window);
  }

  async revokeToken(orgId: string, id: string): Promise<void> {
    found(await revokeEmbedToken(this.ctx.db, orgId, id, this.ctx.clock.now()), 'embed token');
    this.grants.forget(id);
  }

  settings(orgId: string): Promise<EmbedSettings> {
    return findEmbedSettings(this.ctx.db, orgId);
  }

  async updateSettings(orgId: string, input: UpdateEmbedSettings): Promise<EmbedSettings> {
    const origins = input.allowedOrigins.map((origin, index) => canonicalOrigin(origin, `allowedOrigins[${index}]`));
    const saved = await saveEmbedSettings(this.ctx.db, orgId, [...new Set(origins)], this.ctx.clock.now());
    this.origins.forget(orgId);
    return saved;
  }

  /** The organization's allowed origins; empty means any origin may embed. */
  allowedOrigins(orgId: string): Promise<string[]> {
    return this.origins.lookup(orgId);
  }

  /** The claims of a token that may read `dashboardId` now, or 401/403 with a sentence the component can show. */
  async authorize(token: string, dashboardId: string): Promise<EmbedClaims> {
    const verified = await this.signer.verify(token, this.ctx.clock.now());
    if (!verified.ok) {
      throw unauthorized(verified.reason === 'expired' ? 'The embed token has expired; ask the site for a new one.' : 'The embed token is not valid.');
    }
    const grant = await this.grants.lookup(verified.claims.tokenId);
    if (!grant || grant.orgId !== verified.claims.orgId) throw unauthorized('The embed token is no longer valid (its dashboard was deleted).');
    if (grant.revoked) throw unauthorized('The embed token has been revoked.');
    if (verified.claims.dashboardId !== dashboardId) throw new ApiError('FORBIDDEN', 'This embed token is for another dashboard.');
    return verified.claims;
  }

  /** The organization a well-signed token names, expired or not: what the iframe page's frame-ancestors is built from. */
  async organizationOf(token: string): Promise<string | undefined> {
    const verified = await this.signer.verify(token, this.ctx.clock.now());
    return verified.ok ? verified.claims.orgId : verified.orgId;
  }

  async read(claims: EmbedClaims): Promise<EmbeddedDashboard> {
    return { ...(await this.results.lookup(`${claims.orgId} ${claims.dashboardId}`)), theme: claims.theme };
  }

  private async readFresh(orgId: string, dashboardId: string): Promise<Omit<EmbeddedDashboard, 'theme'>> {
    const dashboard = await this.dashboards.get(orgId, dashboardId);
    const data = await this.dashboards.dataOf(orgId, dashboard);
    return {
      id: dashboard.id,
      name: dashboard.name,
      description: dashboard.description,
      refreshedAt: data.refreshedAt,
      widgets: data.widgets,
    };
  }
}

/** `https://app.example.com` exactly as browsers send it in Origin: scheme, host and a non-default port, nothing else. */
function canonicalOrigin(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'is not an origin such as https://app.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(field, 'must use http or https');
  if (url.origin !== value.replace(/\/$/, '').toLowerCase()) {
    throw invalid(field, `must be an origin alone (scheme://host[:port], no path, query or wildcard), such as ${url.origin}`);
  }
  return url.origin;
}
