import type { Caller } from '../platform/auth.js';
import type { PageQuery } from '../platform/pagination.js';
import type { Services } from '../services.js';
import { type ListArgs, pageOf } from './arguments.js';
import { Loaders } from './loaders.js';

/** What every resolver sees: who is calling, the services, and this operation's batch loaders. */
export interface GraphqlContext {
  caller: Caller;
  services: Services;
  loaders: Loaders;
  /** `first` and `after` as the REST page query of this organization. */
  page(args: ListArgs): PageQuery;
}

/** `live`: a subscription's context, which must not keep what it loaded for one event for the next. */
export const graphqlContext = (services: Services, caller: Caller, secretKey: string, live = false): GraphqlContext => ({
  caller,
  services,
  loaders: new Loaders(services, caller.orgId, { cache: !live }),
  page: (args) => pageOf(args, { orgId: caller.orgId, secretKey }),
});
