import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../platform/pagination.js';
import { NullableTimestamp, StringEnum, Timestamp } from '../../platform/route-schemas.js';
import { WidgetResult } from '../dashboards/schema.js';

export const themes = ['light', 'dark'] as const;
export type Theme = (typeof themes)[number];

export const embedTokenLifetime = { defaultSeconds: 600, minSeconds: 60, maxSeconds: 86_400 };

export const CreateEmbedToken = Type.Object(
  {
    dashboardId: Type.String({ maxLength: 100 }),
    expiresInSeconds: Type.Optional(
      Type.Integer({ minimum: embedTokenLifetime.minSeconds, maximum: embedTokenLifetime.maxSeconds, description: 'Default 600 (10 minutes), at most 86400.' }),
    ),
    theme: Type.Optional(StringEnum(themes, { description: 'The theme the iframe page uses when its URL names none.' })),
  },
  { additionalProperties: false },
);
export type CreateEmbedToken = Static<typeof CreateEmbedToken>;

/** An embed token as listed: everything but the token itself, which only the create response carries. */
export const EmbedToken = Type.Object({
  id: Type.String({ examples: ['emb_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
  dashboardId: Type.String(),
  theme: Type.Union([StringEnum(themes), Type.Null()]),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  revokedAt: NullableTimestamp,
});
export type EmbedToken = Static<typeof EmbedToken>;

export const CreatedEmbedToken = Type.Composite([
  EmbedToken,
  Type.Object({
    token: Type.String({ description: 'The signed token (a JWT); shown only in this response.' }),
    embedUrl: Type.String({ description: 'The iframe page for this dashboard and token.' }),
  }),
]);
export type CreatedEmbedToken = Static<typeof CreatedEmbedToken>;

export const EmbedTokenListQuery = Type.Composite([PageQuery, Type.Object({ dashboardId: Type.Optional(Type.String({ maxLength: 100 })) })]);
export type EmbedTokenListQuery = Static<typeof EmbedTokenListQuery>;

export const maxAllowedOrigins = 50;

export const EmbedSettings = Type.Object({
  allowedOrigins: Type.Array(Type.String(), {
    description: 'Origins (scheme://host[:port]) allowed to embed; empty = any origin (the signed token is the gate).',
  }),
  updatedAt: NullableTimestamp,
});
export type EmbedSettings = Static<typeof EmbedSettings>;

export const UpdateEmbedSettings = Type.Object(
  { allowedOrigins: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: maxAllowedOrigins }) },
  { additionalProperties: false },
);
export type UpdateEmbedSettings = Static<typeof UpdateEmbedSettings>;

/** What the embed API shows of a dashboard: its results, never its queries or project. */
export const EmbeddedDashboard = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  theme: Type.Union([StringEnum(themes), Type.Null()]),
  refreshedAt: Timestamp,
  widgets: Type.Array(WidgetResult),
});
export type EmbeddedDashboard = Static<typeof EmbeddedDashboard>;
