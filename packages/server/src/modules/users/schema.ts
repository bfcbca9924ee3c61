import { NullableString, StringEnum, Timestamp } from '../../platform/route-schemas.js';
import { Type, type Static } from '@sinclair/typebox';

export const roles = ['admin', 'member', 'viewer'] as const;
export const userStatuses = ['invited', 'active', 'deactivated'] as const;
export type Role = (typeof roles)[number];
export type UserStatus = (typeof userStatuses)[number];

const RoleEnum = StringEnum(roles);

export const User = Type.Object(
  {
    id: Type.String({ examples: ['usr_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    email: Type.String(),
    name: NullableString(),
    role: RoleEnum,
    status: StringEnum(userStatuses),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'User' },
);
export type User = Static<typeof User>;

/** One rule for an email address, wherever one comes from (the API, the CLI's --admin-email). */
export const Email = Type.String({ format: 'email', maxLength: 320 });
/** The answer to an invitation: the user, and the one-time link (7 days) where they set a password. */
export const InvitedUser = Type.Composite([
  User,
  Type.Object({ inviteUrl: Type.String({ description: 'One-time link, valid 7 days, where the person sets a password and joins.' }) }),
]);

export const InviteUser = Type.Object(
  {
    email: Email,
    role: RoleEnum,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type InviteUser = Static<typeof InviteUser>;

export const UpdateUser = Type.Object(
  {
    role: Type.Optional(RoleEnum),
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateUser = Static<typeof UpdateUser>;

export const UserFilters = Type.Object({
  status: Type.Optional(StringEnum(userStatuses)),
  role: Type.Optional(RoleEnum),
});
export type UserFilters = Static<typeof UserFilters>;
