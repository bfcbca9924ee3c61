import { Type, type Static } from '@sinclair/typebox';
import { NullableString, StringEnum } from '../../platform/route-schemas.js';
import { roles } from '../users/schema.js';
import { passwordLength } from './service.js';

export const SignIn = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: passwordLength.max }),
    orgId: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type SignIn = Static<typeof SignIn>;

export const LinkToken = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const AcceptLink = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ maxLength: 1000 }) },
  { additionalProperties: false },
);

export const LinkDetails = Type.Object({ email: Type.String(), orgName: Type.String(), expiresAt: Type.String() });

/** The signed-in person as the console sees them, with the CSRF token its writes must send. */
export const CurrentSession = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: NullableString(), role: StringEnum(roles) }),
  organization: Type.Object({ id: Type.String(), name: Type.String(), plan: Type.String() }),
  csrfToken: Type.String(),
});
export type CurrentSession = Static<typeof CurrentSession>;
