import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { encryptSecret } from '../../platform/crypto.js';
import { ApiError, found, invalid } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { generateSecret } from '../../webhooks/signer.js';
import { checkWebhookUrl, UrlRejectedError, withDevelopmentHint } from '../../webhooks/url-guard.js';
import { disableWebhook } from './disable.js';
import type { CreateWebhook, UpdateWebhook } from './request-schema.js';
import type { Webhook, WebhookWithSecret } from './schema.js';
import { deleteWebhook, findWebhook, insertWebhook, listWebhooks, toWebhook, updateWebhook } from './store.js';

/** How long a rotated-out secret keeps signing beside the new one. */
const rotationOverlapMs = 24 * 60 * 60 * 1000;

const disabledThroughApi = 'Disabled through the API.';

export class WebhookService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, page: PageQuery): Promise<Page<Webhook>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage((await listWebhooks(this.ctx.db, orgId, window)).map(toWebhook), window);
  }

  async get(orgId: string, id: string): Promise<Webhook> {
    return toWebhook(found(await findWebhook(this.ctx.db, orgId, id), 'webhook'));
  }

  async create(orgId: string, input: CreateWebhook): Promise<WebhookWithSecret> {
    const name = checkName(input.name);
    const url = await this.checkUrl(input.url);
    const secret = generateSecret();
    return this.ctx.db.transaction(async (tx) => {
      const at = this.ctx.clock.now();
      const row = await insertWebhook(tx, {
        id: newId('webhook', at.getTime()),
        orgId,
        name,
        url,
        events: input.events,
        secretSealed: encryptSecret(this.ctx.config.secretKey, secret),
        at,
      });
      const webhook = toWebhook(row);
      await recordEvent(tx, this.ctx.clock, orgId, 'webhook.created', webhook);
      return { ...webhook, secret };
    });
  }

  async update(orgId: string, id: string, input: UpdateWebhook): Promise<Webhook> {
    const name = input.name === undefined ? undefined : checkName(input.name);
    const url = input.url === undefined ? undefined : await this.checkUrl(input.url);
    return this.ctx.db.transaction(async (tx) => {
      const before = found(await findWebhook(tx, orgId, id, true), 'webhook');
      const enabling = input.isActive === true && !before.is_active;
      const row = found(
        await updateWebhook(tx, orgId, id, {
          name,
          url,
          events: input.events,
          updated_at: this.ctx.clock.now(),
          ...(enabling ? { is_active: true, disabled_reason: null, failing_since: null } : {}),
        }),
        'webhook',
      );
      if (input.isActive === false && before.is_active) {
        return found(await disableWebhook(tx, this.ctx.clock, orgId, id, disabledThroughApi), 'webhook');
      }
      const webhook = toWebhook(row);
      if (enabling) await recordEvent(tx, this.ctx.clock, orgId, 'webhook.enabled', webhook);
      return webhook;
    });
  }

  async delete(orgId: string, id: string): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      const row = found(await deleteWebhook(tx, orgId, id), 'webhook');
      await recordEvent(tx, this.ctx.clock, orgId, 'webhook.deleted', toWebhook(row));
    });
  }

  /** A new secret now; the one it replaces keeps signing beside it for 24 hours. */
  async rotateSecret(orgId: string, id: string): Promise<WebhookWithSecret> {
    const secret = generateSecret();
    return this.ctx.db.transaction(async (tx) => {
      const before = found(await findWebhook(tx, orgId, id, true), 'webhook');
      const at = this.ctx.clock.now();
      const row = found(
        await updateWebhook(tx, orgId, id, {
          secret_sealed: encryptSecret(this.ctx.config.secretKey, secret),
          previous_secret_sealed: before.secret_sealed,
          previous_secret_expires_at: new Date(at.getTime() + rotationOverlapMs),
          updated_at: at,
        }),
        'webhook',
      );
      return { ...toWebhook(row), secret };
    });
  }

  private async checkUrl(raw: string): Promise<string> {
    try {
      return (await checkWebhookUrl(raw, { allowPrivate: this.ctx.config.webhookAllowPrivate })).href;
    } catch (error) {
      if (error instanceof UrlRejectedError) throw invalid('url', withDevelopmentHint(error, 'VIGIL_WEBHOOK_ALLOW_PRIVATE'));
      throw error;
    }
  }
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ApiError('VALIDATION_ERROR', 'name must contain a visible character.', [{ field: 'name', message: 'is blank' }]);
  return trimmed;
}
