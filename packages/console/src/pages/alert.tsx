import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Alert, AlertChange, List, Project, Session, TimelineEntry, User } from '../api-types';
import { LiveBadge, useAlertStream } from '../live';
import { followLink } from '../router';
import { Empty, ErrorNote, Loading, Page, useAction, useLoad, when } from '../ui';
import { AlertActions, SeverityBadge, StatusBadge, useActiveUsers } from './alerts';

const happened: Record<string, string> = {
  'alert.created': 'Created',
  'alert.acknowledged': 'Acknowledged',
  'alert.assigned': 'Assigned',
  'alert.resolved': 'Resolved',
  'alert.critical': 'Paged as critical',
  'alert.deleted': 'Deleted',
};

function actorName(entry: TimelineEntry): string {
  const { actor } = entry;
  if (!actor) return 'Vigil';
  if (actor.type === 'apiKey') return `API key ${actor.name ?? actor.id}`;
  return actor.name ?? actor.email ?? actor.id;
}

function Timeline(props: { entries: TimelineEntry[]; users: User[] | undefined }) {
  const email = (id: string | null) => props.users?.find((user) => user.id === id)?.email ?? id;
  return (
    <ol class="timeline" aria-label="Timeline">
      {props.entries.map((entry) => (
        <li key={entry.eventId} data-event={entry.event}>
          <strong>{happened[entry.event] ?? entry.event}</strong>
          {entry.event === 'alert.assigned' && entry.assigneeId && <> to {email(entry.assigneeId)}</>} by {actorName(entry)}
          <div class="type">
            <time dateTime={entry.at}>{when(entry.at)}</time>
          </div>
        </li>
      ))}
    </ol>
  );
}

function Facts(props: { alert: Alert; project: string; assignee: string }) {
  const { alert } = props;
  const facts: [string, string | number | null | undefined][] = [
    ['Project', props.project],
    ['Assignee', props.assignee],
    ['Area', alert.area],
    ['Value', alert.value],
    ['Threshold', alert.threshold],
    ['Created', when(alert.createdAt)],
    ['Acknowledged', alert.acknowledgedAt && when(alert.acknowledgedAt)],
    ['Resolved', alert.resolvedAt && when(alert.resolvedAt)],
    ['Last changed', when(alert.updatedAt)],
    ['Occurrences', alert.occurrences],
    ['Last seen', alert.lastSeenAt && when(alert.lastSeenAt)],
    ['Deduplication key', alert.dedupKey],
    ['Id', alert.id],
  ];
  return (
    <dl class="facts">
      {facts
        .filter(([, value]) => value !== null && value !== undefined && value !== '')
        .map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

function CopyLink() {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(window.location.href).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <button type="button" class="secondary" onClick={copy}>
      {copied ? 'Link copied' : 'Copy link'}
    </button>
  );
}

/** The project's open alerts (active or acknowledged), newest first. */
async function openAlertsOf(projectId: string): Promise<Alert[]> {
  const lists = await Promise.all(['active', 'acknowledged'].map((status) => api<List<Alert>>('GET', `alerts?projectId=${projectId}&status=${status}&limit=20`)));
  return lists.flatMap((list) => list.data).sort((a, b) => (a.id < b.id ? 1 : -1));
}

/** One alert's page (`/alerts/{id}`): everything about it, what happened to it and who did it, live. */
export function AlertPage(props: { session: Session; id: string }) {
  const { id } = props;
  const alert = useLoad(() => api<{ data: Alert }>('GET', `alerts/${encodeURIComponent(id)}`), [id]);
  const timeline = useLoad(() => api<{ data: TimelineEntry[] }>('GET', `alerts/${encodeURIComponent(id)}/timeline`), [id]);
  const projectId = alert.value?.data.projectId;
  const project = useLoad(() => (projectId ? api<{ data: Project }>('GET', `projects/${projectId}`) : Promise.resolve(undefined)), [projectId]);
  const others = useLoad(() => (projectId ? openAlertsOf(projectId) : Promise.resolve(undefined)), [projectId]);
  const users = useActiveUsers();
  const { error, run } = useAction();
  const canWork = props.session.user.role !== 'viewer';
  const refresh = () => {
    alert.reload();
    timeline.reload();
    others.reload();
  };
  const live = useAlertStream(projectId, (change: AlertChange) => (change.data.id === id ? refresh() : others.reload()), refresh);

  const current = alert.value?.data;
  if (!current) {
    return (
      <Page title={alert.error ? 'Alert not found' : 'Alert'}>
        <ErrorNote error={alert.error} />
        {!alert.error && <Loading />}
        <p>
          <a href="/alerts" onClick={(event) => followLink(event, '/alerts')}>
            Back to all alerts
          </a>
        </p>
      </Page>
    );
  }
  const assignee = users.value?.data.find((user) => user.id === current.assigneeId)?.email ?? current.assigneeId ?? 'Nobody';
  const otherOpen = others.value?.filter((one) => one.id !== id) ?? [];
  return (
    <Page title={current.title}>
      <p class="breadcrumb">
        <a href="/alerts" onClick={(event) => followLink(event, '/alerts')}>
          ← All alerts
        </a>
      </p>
      <div class="row badges">
        <SeverityBadge severity={current.severity} />
        <StatusBadge status={current.status} />
        <LiveBadge state={live} />
      </div>
      {current.description && <p class="description">{current.description}</p>}
      <div class="row">
        {canWork && (
          <AlertActions
            alert={current}
            users={users.value?.data}
            onDone={refresh}
            onError={(work) => void run(work)}
          />
        )}
        <CopyLink />
      </div>
      <ErrorNote error={error} />
      <div class="alert-columns">
        <section aria-labelledby="details-title">
          <h2 id="details-title">Details</h2>
          <Facts alert={current} project={project.value?.data.name ?? current.projectId} assignee={assignee} />
        </section>
        <section aria-labelledby="timeline-title">
          <h2 id="timeline-title">What happened</h2>
          <ErrorNote error={timeline.error} />
          {timeline.value && <Timeline entries={timeline.value.data} users={users.value?.data} />}
          {timeline.value?.data.length === 0 && <Empty>No events are kept for this alert any more (they are kept for the retention period).</Empty>}
        </section>
      </div>
      <section aria-labelledby="others-title">
        <h2 id="others-title">Other open alerts of {project.value?.data.name ?? 'this project'}</h2>
        {others.value && otherOpen.length === 0 && <Empty>None: this is the project's only open alert.</Empty>}
        <ul class="other-alerts">
          {otherOpen.map((one) => (
            <li key={one.id}>
              <SeverityBadge severity={one.severity} />{' '}
              <a href={`/alerts/${one.id}`} onClick={(event) => followLink(event, `/alerts/${one.id}`)}>
                {one.title}
              </a>{' '}
              <span class="type">{when(one.createdAt)}</span>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}
