import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { cacheExchange, Client as UrqlClient, fetchExchange, subscriptionExchange } from '@urql/core';
import { ClientError, GraphQLClient } from 'graphql-request';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { createProject } from './support/resources.js';

const page = 'query Page($first: Int, $after: String) { projects(first: $first, after: $after) { id name } }';
const create = 'mutation Create($name: String!) { createProject(input: { name: $name }) { id name } }';
const missing = 'query Missing { project(id: "proj_00000000000000000000000000") { id } }';
const live = 'subscription Live { alertCreated { id title } }';

describe.each(databaseKinds())('GraphQL clients against the server on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  const endpoint = () => `${t.baseUrl}/api/graphql`;
  const wsClient = () =>
    createClient({ url: endpoint().replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${org.apiKey}` }, retryAttempts: 0 });
  /** An alert created over REST until the subscription has one: it is registered at a moment the client does not report. */
  const alertUntil = async (received: () => boolean, projectId: string) => {
    for (let attempt = 0; attempt < 100 && !received(); attempt++) {
      await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, title: 'Live', severity: 'high' } });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    for (const name of ['One', 'Two', 'Three']) await createProject(t, org, name);
  });
  afterAll(() => t.close());

  it('Apollo Client 4: falls back from persisted queries, pages, mutates, reads NOT_FOUND and subscribes', async () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const http = new HttpLink({ uri: endpoint(), headers: { authorization: `Bearer ${org.apiKey}` } });
    const ws = wsClient();
    const link = ApolloLink.split(
      ({ query }) => query.definitions.some((definition) => definition.kind === 'OperationDefinition' && definition.operation === 'subscription'),
      new GraphQLWsLink(ws),
      new PersistedQueryLink({ sha256 }).concat(http),
    );
    const client = new ApolloClient({ link, cache: new InMemoryCache() });
    const first = await client.query<{ projects: { id: string; name: string }[] }>({ query: gql(page), variables: { first: 2 } });
    expect(first.data?.projects.map((project) => project.name)).toEqual(['Three', 'Two']);
    const next = await client.query<{ projects: { name: string }[] }>({ query: gql(page), variables: { first: 2, after: first.data!.projects[1].id } });
    expect(next.data?.projects.map((project) => project.name)).toEqual(['One']);
    const created = await client.mutate<{ createProject: { id: string; name: string } }>({ mutation: gql(create), variables: { name: 'Apollo' } });
    expect(created.data?.createProject.name).toBe('Apollo');
    const notFound = await client.query({ query: gql(missing) }).catch((error: unknown) => error);
    expect(CombinedGraphQLErrors.is(notFound) && notFound.errors[0].extensions?.code).toBe('NOT_FOUND');

    const received: string[] = [];
    const subscription = client.subscribe<{ alertCreated: { title: string } }>({ query: gql(live) }).subscribe((result) => {
      if (result.data) received.push(result.data.alertCreated.title);
    });
    await alertUntil(() => received.length > 0, created.data!.createProject.id);
    expect(received[0]).toBe('Live');
    subscription.unsubscribe();
    await ws.dispose();
  });

  it('urql with graphql-ws: pages, mutates, reads NOT_FOUND and subscribes', async () => {
    const ws = wsClient();
    const client = new UrqlClient({
      url: endpoint(),
      fetchOptions: { headers: { authorization: `Bearer ${org.apiKey}` } },
      exchanges: [
        cacheExchange,
        fetchExchange,
        subscriptionExchange({
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
          }),
        }),
      ],
    });
    const first = await client.query<{ projects: { id: string }[] }>(page, { first: 1 }).toPromise();
    expect(first.data?.projects).toHaveLength(1);
    const created = await client.mutation<{ createProject: { id: string; name: string } }>(create, { name: 'urql' }).toPromise();
    expect(created.data?.createProject.name).toBe('urql');
    const notFound = await client.query(missing, {}).toPromise();
    expect(notFound.error?.graphQLErrors[0].extensions.code).toBe('NOT_FOUND');

    const received: string[] = [];
    const { unsubscribe } = client.subscription<{ alertCreated: { title: string } }>(live, {}).subscribe((result) => {
      if (result.data) received.push(result.data.alertCreated.title);
    });
    await alertUntil(() => received.length > 0, created.data!.createProject.id);
    expect(received[0]).toBe('Live');
    unsubscribe();
    await ws.dispose();
  });

  it('graphql-request: pages, mutates and reads NOT_FOUND', async () => {
    const client = new GraphQLClient(endpoint(), { headers: { authorization: `Bearer ${org.apiKey}` } });
    const first = await client.request<{ projects: { name: string }[] }>(page, { first: 1 });
    expect(first.projects).toHaveLength(1);
    const created = await client.request<{ createProject: { name: string } }>(create, { name: 'graphql-request' });
    expect(created.createProject.name).toBe('graphql-request');
    const notFound = await client.request(missing).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(ClientError);
    expect((notFound as ClientError).response.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});
