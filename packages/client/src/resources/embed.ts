import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { CreatedEmbedToken, EmbedSettings, EmbedToken } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type EmbedTokenCreateParams = BodyOf<Operation<'/api/v1/embed/tokens', 'post'>>;
export type EmbedTokenListParams = FiltersOf<Operation<'/api/v1/embed/tokens', 'get'>>;
export type EmbedSettingsUpdateParams = BodyOf<Operation<'/api/v1/embed/settings', 'patch'>>;

export class EmbedTokens extends APIResource {
  /** Mints a token that lets a web page read one dashboard; the answer carries the `token`, shown only this once. */
  create(params: EmbedTokenCreateParams, options?: RequestOptions): APIPromise<CreatedEmbedToken> {
    return this.requestData({ method: 'POST', path: '/embed/tokens', body: params, options });
  }

  list(params?: EmbedTokenListParams, options?: RequestOptions): PagePromise<EmbedToken> {
    return this.page('/embed/tokens', params, options);
  }

  /** Revokes the token: every server process refuses it within a second. */
  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/embed/tokens/${segment(id)}`, options });
  }
}

export class EmbedSettingsResource extends APIResource {
  retrieve(options?: RequestOptions): APIPromise<EmbedSettings> {
    return this.requestData({ method: 'GET', path: '/embed/settings', options });
  }

  /** Sets the origins allowed to embed the organization's dashboards; an empty list allows any. */
  update(params: EmbedSettingsUpdateParams, options?: RequestOptions): APIPromise<EmbedSettings> {
    return this.requestData({ method: 'PATCH', path: '/embed/settings', body: params, options });
  }
}

export class Embed extends APIResource {
  readonly tokens = new EmbedTokens(this.client);
  readonly settings = new EmbedSettingsResource(this.client);
}
