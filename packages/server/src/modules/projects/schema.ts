import { Type, type Static } from '@sinclair/typebox';
import { NullableString, OptionalText, Timestamp } from '../../platform/route-schemas.js';

export const Project = Type.Object(
  {
    id: Type.String({ examples: ['proj_01jd3v7f3ygc0x6m8pj6kq2e9r'] }),
    name: Type.String(),
    area: NullableString(),
    description: NullableString(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Project' },
);
export type Project = Static<typeof Project>;

export const CreateProject = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    area: OptionalText(200),
    description: OptionalText(5000),
  },
  { additionalProperties: false },
);
export type CreateProject = Static<typeof CreateProject>;

export const UpdateProject = Type.Partial(CreateProject, { additionalProperties: false, minProperties: 1 });
export type UpdateProject = Static<typeof UpdateProject>;
