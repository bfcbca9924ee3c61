import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { ChatAnswer } from '../models.js';
import type { BodyOf, Operation } from '../operations.js';
import { APIResource } from '../resource.js';

export type ChatAskParams = BodyOf<Operation<'/api/v1/chat', 'post'>>;

export class Chat extends APIResource {
  /** Asks a question about a project's data in plain language. */
  ask(params: ChatAskParams, options?: RequestOptions): APIPromise<ChatAnswer> {
    return this.requestData({ method: 'POST', path: '/chat', body: params, options });
  }
}
