import type { paths } from './generated/openapi.js';

type Path = keyof paths;
type Method = 'get' | 'post' | 'patch' | 'delete';
type Json<Content> = Content extends { content: { 'application/json': infer Body } } ? Body : never;

/** The generated description of one operation, by its path under /api/v1 and its method. */
export type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON body an operation takes. */
export type BodyOf<O> = O extends { requestBody?: infer Body } ? Json<NonNullable<Body>> : never;

/** The query parameters an operation takes. */
export type QueryOf<O> = O extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

type Success<O> = O extends { responses: infer Responses } ? Responses[Extract<keyof Responses, 200 | 201 | 202>] : never;

/** What an operation answers inside `{data}`: the resource, or for a list the item type. */
export type DataOf<O> = Json<Success<O>> extends { data: infer Data } ? (Data extends (infer Item)[] ? Item : Data) : never;

/** A list operation's filters, without the paging parameters the page handles itself. */
export type FiltersOf<O> = Omit<QueryOf<O>, 'cursor'>;
