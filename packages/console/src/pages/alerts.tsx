import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { type Alert, type AlertChange, type AlertStatus, alertStatuses, type List, type OpenCounts, type Session, severities, type Severity, type User } from '../api-types';
import { LiveBadge, useAlertStream } from '../live';
import { followLink, navigate, useSearch } from '../router';
import { Choice, Empty, ErrorNote, Field, Loading, type Option, optionsOf, Page, TableHead, useAction, useLoad, when } from '../ui';
import { useProjects } from './projects';

const pageSize = 25;
const filterNames = ['projectId', 'status', 'severity', 'assigneeId', 'q'] as const;
type Filters = Record<(typeof filterNames)[number], string>;

function filtersOf(search: string): Filters {
  const params = new URLSearchParams(search);
  return Object.fromEntries(filterNames.map((name) => [name, params.get(name) ?? ''])) as Filters;
}

const queryOf = (filters: Partial<Filters>, extra: Record<string, string> = {}): string =>
  new URLSearchParams(Object.entries({ ...filters, ...extra }).filter(([, value]) => value)).toString();

/** Whether a changed alert belongs in the list as filtered: what the server's filters would say. */
function matches(alert: Alert, filters: Filters): boolean {
  return (
    (!filters.projectId || alert.projectId === filters.projectId) &&
    (!filters.status || alert.status === filters.status) &&
    (!filters.severity || alert.severity === filters.severity) &&
    (!filters.assigneeId || alert.assigneeId === filters.assigneeId) &&
    (!filters.q || alert.title.toLowerCase().includes(filters.q.toLowerCase()))
  );
}

/**
 * The list with one streamed change applied: updated in place, added on top when created and shown
 * by the filters, taken out when deleted or no longer shown. A change older than the alert as the
 * list shows it (replayed on a read that already saw a later one) leaves it as it is.
 */
function withChange(shown: Alert[], change: AlertChange, filters: Filters): Alert[] {
  const alert = change.data;
  const current = shown.find((one) => one.id === alert.id);
  if (current && current.updatedAt > alert.updatedAt) return shown;
  const rest = shown.filter((one) => one.id !== alert.id);
  if (change.event === 'alert.deleted' || !matches(alert, filters)) return rest;
  if (current) return shown.map((one) => (one.id === alert.id ? alert : one));
  return change.event === 'alert.created' ? [alert, ...rest] : shown;
}

/** The active members, who can be assigned; every page that assigns reads them once. */
export const useActiveUsers = () => useLoad(() => api<List<User>>('GET', 'users?status=active&limit=100'));

/** Acknowledge, assign, resolve: the moves a member or admin makes on an alert, wherever it is shown. */
export function AlertActions(props: { alert: Alert; users: User[] | undefined; onDone: (alert: Alert) => void; onError: (run: () => Promise<unknown>) => void }) {
  const { alert } = props;
  const act = (path: string, body: unknown = {}) => props.onError(async () => props.onDone((await api<{ data: Alert }>('POST', `alerts/${alert.id}/${path}`, body)).data));
  if (alert.status === 'resolved') return null;
  return (
    <div class="row actions">
      {alert.status === 'active' && (
        <button type="button" class="secondary" onClick={() => act('acknowledge')}>
          Acknowledge
        </button>
      )}
      <select aria-label={`Assignee of ${alert.title}`} value={alert.assigneeId ?? ''} onChange={(e) => act('assign', { userId: e.currentTarget.value })}>
        <option value="" disabled>
          Assign to…
        </option>
        {props.users?.map((user) => (
          <option key={user.id} value={user.id}>
            {user.email}
          </option>
        ))}
      </select>
      <button type="button" class="secondary" onClick={() => act('resolve')}>
        Resolve
      </button>
    </div>
  );
}

export function SeverityBadge(props: { severity: Severity }) {
  return <span class={`severity ${props.severity}`}>{props.severity}</span>;
}

export function StatusBadge(props: { status: AlertStatus }) {
  return <span class={`status-badge ${props.status}`}>{props.status}</span>;
}

function OpenCountsBar(props: { counts: OpenCounts | undefined; selected: string; onSelect: (severity: string) => void }) {
  return (
    <ul class="counts" aria-label="Open alerts by severity">
      {severities.map((severity) => (
        <li key={severity}>
          <button
            type="button"
            class={`count ${severity}`}
            aria-pressed={props.selected === severity}
            onClick={() => props.onSelect(props.selected === severity ? '' : severity)}
          >
            <strong>{props.counts?.[severity] ?? '–'}</strong> {severity}
          </button>
        </li>
      ))}
    </ul>
  );
}

export function Alerts(props: { session: Session }) {
  const search = useSearch();
  const filters = filtersOf(search);
  const listQuery = queryOf(filters);
  const [alerts, setAlerts] = useState<Alert[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [titleSearch, setTitleSearch] = useState(filters.q);
  const projects = useProjects();
  const users = useActiveUsers();
  const counts = useLoad(() => api<{ data: OpenCounts }>('GET', `alerts/open-counts?${queryOf({ projectId: filters.projectId })}`), [filters.projectId]);
  const { error, run } = useAction();
  const canWork = props.session.user.role !== 'viewer';
  const latest = useRef(filters);
  latest.current = filters;
  /**
   * The first page read last, and the changes heard since it started: its answer may have been read
   * before they were committed, so they are applied to it again when it comes. An earlier read that
   * answers later is dropped.
   */
  const firstPageRead = useRef({ answered: true, changesSince: [] as AlertChange[] });

  const loadFirstPage = () => {
    const read = { answered: false, changesSince: [] as AlertChange[] };
    firstPageRead.current = read;
    return api<List<Alert>>('GET', `alerts?${queryOf(filters, { limit: String(pageSize) })}`).then(
      (page) => {
        if (firstPageRead.current !== read) return;
        read.answered = true;
        setAlerts(read.changesSince.reduce((shown, change) => withChange(shown, change, latest.current), page.data));
        setCursor(page.meta.hasMore ? page.meta.nextCursor : null);
        setLoadError(undefined);
      },
      (failure: unknown) => {
        if (firstPageRead.current !== read) return;
        read.answered = true;
        setLoadError(failure instanceof Error ? failure.message : String(failure));
      },
    );
  };
  useEffect(() => {
    setAlerts(undefined);
    setTitleSearch(filters.q);
    void loadFirstPage();
  }, [listQuery]);

  const loadMore = () =>
    void run(async () => {
      const page = await api<List<Alert>>('GET', `alerts?${queryOf(filters, { limit: String(pageSize), cursor: cursor ?? '' })}`);
      setAlerts((shown) => [...(shown ?? []), ...page.data.filter((alert) => !shown?.some((one) => one.id === alert.id))]);
      setCursor(page.meta.hasMore ? page.meta.nextCursor : null);
    });

  const changed = (change: AlertChange) => {
    if (!firstPageRead.current.answered) firstPageRead.current.changesSince.push(change);
    setAlerts((shown) => shown && withChange(shown, change, latest.current));
    counts.reload();
  };
  const live = useAlertStream(filters.projectId || undefined, changed, () => {
    void loadFirstPage();
    counts.reload();
  });

  const setFilter = (name: keyof Filters, value: string, options: { replace?: boolean } = {}) => {
    const next = queryOf({ ...filters, [name]: value });
    navigate(`/alerts${next ? `?${next}` : ''}`, options);
  };
  useEffect(() => {
    if (titleSearch === filters.q) return;
    const timer = window.setTimeout(() => setFilter('q', titleSearch.trim(), { replace: true }), 300);
    return () => window.clearTimeout(timer);
  }, [titleSearch]);

  const select = (name: keyof Filters, label: string, options: Option[]) => (
    <Choice label={label} value={filters[name]} options={options} none="All" onChange={(value) => setFilter(name, value)} />
  );
  const projectName = (id: string) => projects.value?.data.find((project) => project.id === id)?.name ?? id;
  const userEmail = (id: string | null) => (id ? (users.value?.data.find((user) => user.id === id)?.email ?? id) : '—');
  const replace = (alert: Alert) => setAlerts((shown) => shown?.map((one) => (one.id === alert.id ? alert : one)));
  return (
    <Page title="Alerts" intro="What needs you now. Changes made anywhere show here within a second or two.">
      <div class="page-tools">
        <LiveBadge state={live} />
      </div>
      <OpenCountsBar counts={counts.value?.data} selected={filters.severity} onSelect={(severity) => setFilter('severity', severity)} />
      <form class="row filters" role="search" aria-label="Filter alerts" onSubmit={(event) => event.preventDefault()}>
        <Field label="Title contains">
          <input type="search" value={titleSearch} maxLength={200} onInput={(e) => setTitleSearch(e.currentTarget.value)} />
        </Field>
        {select('projectId', 'Project', projects.value?.data.map((project) => ({ value: project.id, label: project.name })) ?? [])}
        {select('status', 'Status', optionsOf(alertStatuses))}
        {select('severity', 'Severity', optionsOf(severities))}
        {select('assigneeId', 'Assignee', users.value?.data.map((user) => ({ value: user.id, label: user.email })) ?? [])}
      </form>
      <ErrorNote error={error ?? loadError} />
      {!alerts && !loadError && <Loading />}
      {alerts && alerts.length === 0 && (
        <Empty>No alerts match. Alerts arrive through the API (POST /api/v1/alerts) or from your integrations; create a project first if you have none.</Empty>
      )}
      {alerts && alerts.length > 0 && (
        <table class="cards" aria-live="polite">
          <caption>Alerts, newest first</caption>
          <TableHead columns={['Severity', 'Title', 'Status', 'Project', 'Created', 'Assignee']} withActions={canWork} />
          <tbody>
            {alerts.map((alert) => (
              <tr key={alert.id} data-alert={alert.id}>
                <td data-label="Severity">
                  <SeverityBadge severity={alert.severity} />
                </td>
                <td data-label="Title" class="title-cell">
                  <a href={`/alerts/${alert.id}`} onClick={(event) => followLink(event, `/alerts/${alert.id}`)}>
                    {alert.title}
                  </a>
                  {(alert.occurrences ?? 1) > 1 && <span class="type"> · seen {alert.occurrences} times</span>}
                </td>
                <td data-label="Status">
                  <StatusBadge status={alert.status} />
                </td>
                <td data-label="Project">{projectName(alert.projectId)}</td>
                <td data-label="Created">{when(alert.createdAt)}</td>
                <td data-label="Assignee">{userEmail(alert.assigneeId)}</td>
                {canWork && (
                  <td data-label="Actions">
                    <AlertActions alert={alert} users={users.value?.data} onDone={replace} onError={(work) => void run(work)} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="secondary load-more" onClick={loadMore}>
          Load more
        </button>
      )}
    </Page>
  );
}
