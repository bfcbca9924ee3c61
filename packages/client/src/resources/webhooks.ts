import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Webhook, WebhookDelivery, WebhookEvent, WebhookRecovery, WebhookWithSecret } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';
import { type VerifyOptions, verifyWebhook, type WebhookHeaders, type WebhookPayload } from '../webhooks.js';

export type WebhookCreateParams = BodyOf<Operation<'/api/v1/webhooks', 'post'>>;
export type WebhookUpdateParams = BodyOf<Operation<'/api/v1/webhooks/{id}', 'patch'>>;
export type WebhookListParams = FiltersOf<Operation<'/api/v1/webhooks', 'get'>>;
export type WebhookRecoverParams = BodyOf<Operation<'/api/v1/webhooks/{id}/recover', 'post'>>;
export type DeliveryListParams = FiltersOf<Operation<'/api/v1/webhooks/{id}/deliveries', 'get'>>;

export class Deliveries extends APIResource {
  list(webhookId: string, params?: DeliveryListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this.page(`/webhooks/${segment(webhookId)}/deliveries`, params, options);
  }

  retrieve(webhookId: string, deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.requestData({ method: 'GET', path: `/webhooks/${segment(webhookId)}/deliveries/${segment(deliveryId)}`, options });
  }

  /** Sends the delivery again now. */
  retry(webhookId: string, deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.requestData({ method: 'POST', path: `/webhooks/${segment(webhookId)}/deliveries/${segment(deliveryId)}/retry`, options });
  }
}

export class Webhooks extends APIResource {
  readonly deliveries = new Deliveries(this.client);

  list(params?: WebhookListParams, options?: RequestOptions): PagePromise<Webhook> {
    return this.page('/webhooks', params, options);
  }

  /** Registers an endpoint; the answer carries its signing `secret`, shown only this once. */
  create(params: WebhookCreateParams, options?: RequestOptions): APIPromise<WebhookWithSecret> {
    return this.requestData({ method: 'POST', path: '/webhooks', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Webhook> {
    return this.requestData({ method: 'GET', path: `/webhooks/${segment(id)}`, options });
  }

  update(id: string, params: WebhookUpdateParams, options?: RequestOptions): APIPromise<Webhook> {
    return this.requestData({ method: 'PATCH', path: `/webhooks/${segment(id)}`, body: params, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/webhooks/${segment(id)}`, options });
  }

  /** A new secret; the old one keeps signing beside it for 24 hours. */
  rotateSecret(id: string, options?: RequestOptions): APIPromise<WebhookWithSecret> {
    return this.requestData({ method: 'POST', path: `/webhooks/${segment(id)}/rotate-secret`, options });
  }

  /** Sends again the failed deliveries created since a time. */
  recover(id: string, params: WebhookRecoverParams, options?: RequestOptions): APIPromise<WebhookRecovery> {
    return this.requestData({ method: 'POST', path: `/webhooks/${segment(id)}/recover`, body: params, options });
  }

  /** `verifyWebhook`, here too for convenience: no key or request needed. */
  verify(rawBody: WebhookPayload, headers: WebhookHeaders, secret: string, options?: VerifyOptions): Promise<WebhookEvent> {
    return verifyWebhook(rawBody, headers, secret, options);
  }
}
