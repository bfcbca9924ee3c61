import type { Alert, CreateAlert as CreateAlertBody, UpdateAlert as UpdateAlertBody } from '../modules/alerts/schema.js';
import { CreateAlert, UpdateAlert } from '../modules/alerts/schema.js';
import { AskQuestion } from '../modules/chat/schema.js';
import { notConfigured } from '../modules/chat/service.js';
import type { Connection } from '../modules/connections/schema.js';
import type { Dataset } from '../modules/datasets/schema.js';
import type { QueryRecord } from '../modules/history/schema.js';
import { CreateProject, UpdateProject } from '../modules/projects/schema.js';
import type { Project } from '../modules/projects/schema.js';
import type { User } from '../modules/users/schema.js';
import { CreateWebhook } from '../modules/webhooks/request-schema.js';
import type { Webhook } from '../modules/webhooks/schema.js';
import { found } from '../platform/errors.js';
import { asRestBody, type ListArgs, lowerOrUndefined } from './arguments.js';
import type { GraphqlContext } from './context.js';

type Input = Record<string, unknown>;
type IdArgs = { id: string };

const upper = (value: string): string => value.toUpperCase();

async function projectOf(parent: { projectId: string }, _args: unknown, ctx: GraphqlContext): Promise<Project> {
  return found(await ctx.loaders.project.load(parent.projectId), 'project');
}

/** Query and Mutation call the module services, exactly as the REST routes do; types map fields. */
export const resolvers = {
  Query: {
    projects: async (_: unknown, args: ListArgs, { services, caller, page }: GraphqlContext) =>
      (await services.projects.list(caller.orgId, page(args))).data,
    project: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.projects.get(caller.orgId, id),
    alerts: async (_: unknown, args: ListArgs & { filter?: Input | null }, { services, caller, page }: GraphqlContext) => {
      const filter = args.filter ?? {};
      const filters = {
        projectId: (filter.projectId as string | null | undefined) ?? undefined,
        status: lowerOrUndefined<Alert['status']>(filter.status as string | null | undefined),
        severity: lowerOrUndefined<Alert['severity']>(filter.severity as string | null | undefined),
        dedupKey: (filter.dedupKey as string | null | undefined) ?? undefined,
      };
      return (await services.alerts.list(caller.orgId, filters, page(args))).data;
    },
    alert: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.alerts.get(caller.orgId, id),
    connections: async (_: unknown, args: ListArgs, { services, caller, page }: GraphqlContext) =>
      (await services.connections.list(caller.orgId, page(args))).data,
    connection: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.connections.get(caller.orgId, id),
    history: async (_: unknown, args: ListArgs & { projectId?: string | null }, { services, caller, page }: GraphqlContext) =>
      (await services.history.list(caller.orgId, { projectId: args.projectId ?? undefined }, page(args))).data,
    users: async (_: unknown, args: ListArgs, { services, caller, page }: GraphqlContext) =>
      (await services.users.list(caller.orgId, {}, page(args))).data,
    user: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.users.get(caller.orgId, id),
    usage: (_: unknown, _args: unknown, { services, caller }: GraphqlContext) => services.usage.current(caller.orgId),
    webhooks: async (_: unknown, args: ListArgs, { services, caller, page }: GraphqlContext) =>
      (await services.webhooks.list(caller.orgId, page(args))).data,
    webhook: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.webhooks.get(caller.orgId, id),
    datasets: async (_: unknown, args: ListArgs & { projectId?: string | null }, { services, caller, page }: GraphqlContext) =>
      (await services.datasets.list(caller.orgId, args.projectId ?? undefined, page(args))).data,
    dataset: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.datasets.get(caller.orgId, id),
  },

  Mutation: {
    createProject: (_: unknown, { input }: { input: Input }, { services, caller }: GraphqlContext) =>
      services.projects.create(caller.orgId, asRestBody(CreateProject, input)),
    updateProject: (_: unknown, { id, input }: IdArgs & { input: Input }, { services, caller }: GraphqlContext) =>
      services.projects.update(caller.orgId, id, asRestBody(UpdateProject, input)),
    deleteProject: async (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => {
      await services.projects.delete(caller.orgId, id);
      return true;
    },
    createAlert: (_: unknown, { input }: { input: Input }, { services, caller }: GraphqlContext) =>
      services.alerts.create(caller.orgId, asRestBody<CreateAlertBody>(CreateAlert, input, ['severity'])),
    updateAlert: (_: unknown, { id, input }: IdArgs & { input: Input }, { services, caller }: GraphqlContext) =>
      services.alerts.update(caller.orgId, id, asRestBody<UpdateAlertBody>(UpdateAlert, input, ['severity'])),
    acknowledgeAlert: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.alerts.acknowledge(caller.orgId, id),
    assignAlert: (_: unknown, { id, userId }: IdArgs & { userId: string }, { services, caller }: GraphqlContext) =>
      services.alerts.assign(caller.orgId, id, userId),
    resolveAlert: (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => services.alerts.resolve(caller.orgId, id),
    deleteAlert: async (_: unknown, { id }: IdArgs, { services, caller }: GraphqlContext) => {
      await services.alerts.delete(caller.orgId, id);
      return true;
    },
    askAI: (_: unknown, { input }: { input: Input }, { services, caller }: GraphqlContext) => {
      // As in REST: an instance without AI answers SERVICE_UNAVAILABLE whatever is asked.
      if (!services.chat.configured) throw notConfigured();
      return services.chat.ask({ orgId: caller.orgId, apiKeyId: caller.keyId, userId: null }, asRestBody(AskQuestion, input));
    },
    createWebhook: (_: unknown, { input }: { input: Input }, { services, caller }: GraphqlContext) =>
      services.webhooks.create(caller.orgId, asRestBody(CreateWebhook, input)),
  },

  Project: {
    alerts: (project: Project, args: ListArgs & { status?: string | null; severity?: string | null }, ctx: GraphqlContext) =>
      ctx.loaders.alertsOfProject(project.id, {
        filters: { status: lowerOrUndefined(args.status), severity: lowerOrUndefined(args.severity) },
        page: ctx.page(args),
      }),
  },
  Alert: {
    severity: (alert: Alert) => upper(alert.severity),
    status: (alert: Alert) => upper(alert.status),
    project: projectOf,
    assignee: (alert: Alert, _args: unknown, ctx: GraphqlContext) =>
      alert.assigneeId === null ? null : ctx.loaders.user.load(alert.assigneeId).then((user) => user ?? null),
  },
  User: {
    role: (user: User) => upper(user.role),
    status: (user: User) => upper(user.status),
  },
  Connection: {
    dbType: (connection: Connection) => upper(connection.dbType),
    status: (connection: Connection) => upper(connection.status),
  },
  QueryRecord: {
    status: (record: QueryRecord) => upper(record.status),
    project: projectOf,
  },
  Dataset: {
    status: (dataset: Dataset) => upper(dataset.status),
    project: projectOf,
  },
  Webhook: {
    secret: (webhook: Webhook & { secret?: string }) => webhook.secret ?? null,
  },
};
