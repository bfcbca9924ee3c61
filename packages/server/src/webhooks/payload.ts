import { eventCatalog, isEventName } from '../events/catalog.js';
import { isoTimestamp } from '../db/timestamps.js';

export interface DeliveryPayload {
  event: string;
  orgId: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * The body of every attempt of a delivery, rebuilt from the stored event. The database keeps event
 * data as jsonb, which forgets key order; putting the keys back in the order of the catalog's schema
 * makes `data` read like the REST resource, and the same event always gives the same bytes.
 */
export function deliveryPayload(event: string, orgId: string, at: Date, data: Record<string, unknown>): DeliveryPayload {
  return { event, orgId, timestamp: isoTimestamp(at), data: inCatalogOrder(event, data) };
}

function inCatalogOrder(event: string, data: Record<string, unknown>): Record<string, unknown> {
  if (!isEventName(event)) return data;
  const properties = (eventCatalog[event].data as { properties?: Record<string, unknown> }).properties ?? {};
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) if (Object.hasOwn(data, key)) ordered[key] = data[key];
  for (const [key, value] of Object.entries(data)) if (!Object.hasOwn(ordered, key)) ordered[key] = value;
  return ordered;
}
