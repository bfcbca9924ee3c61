import { NullableString, NullableTimestamp, OptionalText, StringEnum, Timestamp } from '../../platform/route-schemas.js';
import { Type, type Static } from '@sinclair/typebox';

export const severities = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const statuses = ['active', 'acknowledged', 'resolved'] as const;
export type Severity = (typeof severities)[number];
export type AlertStatus = (typeof statuses)[number];

const NullableText = NullableString();
export const SeverityEnum = StringEnum(severities);
export const StatusEnum = StringEnum(statuses);

export const Alert = Type.Object(
  {
    id: Type.String({ examples: ['alrt_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    projectId: Type.String(),
    title: Type.String(),
    description: NullableText,
    severity: SeverityEnum,
    status: StatusEnum,
    area: NullableText,
    value: NullableText,
    threshold: NullableText,
    assigneeId: NullableText,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    acknowledgedAt: NullableTimestamp,
    resolvedAt: NullableTimestamp,
    dedupKey: NullableString({ description: 'The key repeats of this alert are recognized by; null when it was created without one.' }),
    occurrences: Type.Integer({ minimum: 1, description: 'How many times it was raised: 1, plus one for each repeat of its dedupKey while it was open.' }),
    lastSeenAt: Type.String({ format: 'date-time', description: 'When it was last raised: createdAt, or the time of the latest repeat.' }),
  },
  { $id: 'Alert' },
);
export type Alert = Static<typeof Alert>;

const editable = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  severity: SeverityEnum,
  description: OptionalText(10_000),
  area: OptionalText(200),
  value: OptionalText(200),
  threshold: OptionalText(200),
};

const DedupKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'While an alert of the project with this key is active or acknowledged, a POST counts a repeat of it (200, occurrences + 1) instead of creating another.',
});

export const CreateAlert = Type.Object(
  { ...editable, projectId: Type.String({ minLength: 1, maxLength: 100 }), dedupKey: Type.Optional(DedupKey) },
  { additionalProperties: false },
);
export type CreateAlert = Static<typeof CreateAlert>;

export const UpdateAlert = Type.Partial(Type.Object(editable), { additionalProperties: false, minProperties: 1 });
export type UpdateAlert = Static<typeof UpdateAlert>;

export const AssignAlert = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const AlertFilters = Type.Object({
  projectId: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(StatusEnum),
  severity: Type.Optional(SeverityEnum),
  dedupKey: Type.Optional(Type.String({ maxLength: 255, description: 'Only alerts with this dedupKey, open or resolved.' })),
  assigneeId: Type.Optional(Type.String({ maxLength: 100, description: 'Only alerts assigned to this user.' })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only alerts whose title contains this text (case-insensitive).' })),
});
export type AlertFilters = Static<typeof AlertFilters>;

const TimelineActor = Type.Union([
  Type.Object({ type: Type.Literal('user'), id: Type.String(), email: NullableText, name: NullableText }),
  Type.Object({ type: Type.Literal('apiKey'), id: Type.String(), name: NullableText }),
  Type.Null(),
]);

export const TimelineEntry = Type.Object(
  {
    eventId: Type.String({ examples: ['evt_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    event: Type.String({ examples: ['alert.acknowledged'] }),
    at: Timestamp,
    actor: TimelineActor,
    assigneeId: NullableText,
  },
  {
    $id: 'AlertTimelineEntry',
    description:
      'One recorded event of the alert. `actor` is who caused it: a user (console session), an API key, or null when unknown (events from before actors were recorded, or made by the service itself). `assigneeId` is the alert\'s assignee after the event.',
  },
);
export type TimelineEntry = Static<typeof TimelineEntry>;

export const OpenCounts = Type.Object(
  Object.fromEntries(severities.map((severity) => [severity, Type.Integer({ minimum: 0 })])) as Record<Severity, ReturnType<typeof Type.Integer>>,
  { $id: 'AlertOpenCounts', description: 'Open alerts (active or acknowledged) per severity.' },
);
export type OpenCounts = Static<typeof OpenCounts>;

export const OpenCountsQuery = Type.Object({ projectId: Type.Optional(Type.String({ maxLength: 100 })) });
