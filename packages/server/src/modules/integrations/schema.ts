import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../platform/route-schemas.js';

/** The most alerts one notification may carry: one transaction applies them all or none. */
export const maxAlertsPerPayload = 1000;

const LabelSet = Type.Record(Type.String(), Type.String());

/**
 * One alert of Alertmanager's webhook payload, version 4
 * (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config). Fields Vigil does not
 * read are allowed, so a newer Alertmanager that adds some is not refused.
 */
export const AlertmanagerAlert = Type.Object({
  status: StringEnum(['firing', 'resolved'] as const),
  labels: LabelSet,
  annotations: Type.Optional(LabelSet),
  startsAt: Type.Optional(Type.String({ format: 'date-time' })),
  endsAt: Type.Optional(Type.String({ format: 'date-time' })),
  generatorURL: Type.Optional(Type.String({ maxLength: 2000 })),
  fingerprint: Type.String({ minLength: 1, maxLength: 255, description: 'Becomes the Vigil alert’s dedupKey.' }),
});
export type AlertmanagerAlert = Static<typeof AlertmanagerAlert>;

export const AlertmanagerPayload = Type.Object(
  {
    version: StringEnum(['4'] as const, { description: 'The payload version Alertmanager sends: "4".' }),
    status: Type.Optional(StringEnum(['firing', 'resolved'] as const)),
    receiver: Type.Optional(Type.String()),
    groupKey: Type.Optional(Type.String()),
    truncatedAlerts: Type.Optional(Type.Integer({ minimum: 0 })),
    groupLabels: Type.Optional(LabelSet),
    commonLabels: Type.Optional(LabelSet),
    commonAnnotations: Type.Optional(LabelSet),
    externalURL: Type.Optional(Type.String()),
    alerts: Type.Array(AlertmanagerAlert, { maxItems: maxAlertsPerPayload }),
  },
  { description: "Prometheus Alertmanager's webhook payload, version 4, as its webhook receiver sends it." },
);
export type AlertmanagerPayload = Static<typeof AlertmanagerPayload>;

export const AlertmanagerQuery = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 100, description: 'The project the alerts belong to.' }),
});

export const AlertmanagerResult = Type.Object({
  created: Type.Integer({ description: 'Firing alerts that opened a new Vigil alert.' }),
  repeated: Type.Integer({ description: 'Firing alerts that repeated an open Vigil alert (its occurrences counted once more).' }),
  resolved: Type.Integer({ description: 'Resolved alerts that resolved an open Vigil alert; one with no open alert counts nowhere.' }),
});
export type AlertmanagerResult = Static<typeof AlertmanagerResult>;
