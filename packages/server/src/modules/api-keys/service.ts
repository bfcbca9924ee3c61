import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Queryable } from '../../db/connect.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { displayPrefix, generateApiKey, hashApiKey } from './key-material.js';
import type { ApiKey } from './schema.js';
import { findApiKey, insertApiKey, listApiKeys, revokeApiKey } from './store.js';

export interface CreatedApiKey {
  key: ApiKey;
  /** The only time the plain key exists outside its owner's hands. */
  apiKey: string;
}

export interface KeyOptions {
  name?: string;
  createdBy?: string | null;
  expiresAt?: Date | null;
  /** Counted from now; ignored when `expiresAt` is given. */
  expiresInDays?: number;
}

const dayMs = 24 * 60 * 60 * 1000;

export class ApiKeyService {
  constructor(private readonly ctx: ServiceContext) {}

  /** Creates a key inside the caller's transaction (organization creation makes its first key this way). */
  async createIn(tx: Queryable, orgId: string, options: KeyOptions = {}): Promise<CreatedApiKey> {
    const at = this.ctx.clock.now();
    const apiKey = generateApiKey();
    const key = await insertApiKey(tx, {
      id: newId('apiKey', at.getTime()),
      orgId,
      name: options.name ?? 'Default key',
      keyHash: hashApiKey(apiKey),
      displayPrefix: displayPrefix(apiKey),
      createdBy: options.createdBy ?? null,
      createdAt: at,
      expiresAt: options.expiresAt ?? (options.expiresInDays === undefined ? null : new Date(at.getTime() + options.expiresInDays * dayMs)),
    });
    await recordEvent(tx, this.ctx.clock, orgId, 'api_key.created', key);
    return { key, apiKey };
  }

  async create(orgId: string, options: KeyOptions = {}): Promise<CreatedApiKey> {
    return this.ctx.db.transaction((tx) => this.createIn(tx, orgId, options));
  }

  async list(orgId: string, page: PageQuery): Promise<Page<ApiKey>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listApiKeys(this.ctx.db, orgId, window), window);
  }

  /** Revokes one of the organization's keys; another organization's key is not found. */
  async revokeOwned(orgId: string, keyId: string): Promise<ApiKey> {
    const owned = await findApiKey(this.ctx.db, keyId);
    if (!owned || owned.orgId !== orgId) throw notFound('API key');
    return this.revoke(keyId);
  }

  async revoke(keyId: string): Promise<ApiKey> {
    return this.ctx.db.transaction(async (tx) => {
      const revoked = await revokeApiKey(tx, keyId, this.ctx.clock.now());
      if (!revoked) {
        const alreadyRevoked = await findApiKey(tx, keyId);
        if (alreadyRevoked) return alreadyRevoked.key;
        throw notFound('API key');
      }
      await recordEvent(tx, this.ctx.clock, revoked.orgId, 'api_key.deleted', revoked.key);
      return revoked.key;
    });
  }
}
