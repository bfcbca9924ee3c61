/**
 * The route-schema fields that name an operation in the OpenAPI document:
 * - `operationId`: DESIGN §3.6's method + resource (`listAlerts`, `retryWebhookDelivery`), what
 *   code generators name their methods after;
 * - `summary`: one line; `description` where a rule needs words;
 * - the client namespace (the method path's first part) as the tag;
 * - `x-vigil-client-method`: the client libraries' method path (`webhooks.deliveries.retry`),
 *   which their coverage tests read to check that every operation has its method.
 */
export function operation(operationId: string, clientMethod: string, summary: string, description?: string) {
  return {
    operationId,
    summary,
    tags: [clientMethod.split('.')[0]],
    'x-vigil-client-method': clientMethod,
    ...(description === undefined ? {} : { description }),
  };
}
