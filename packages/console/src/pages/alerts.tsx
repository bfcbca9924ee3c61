import { useEffect, useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Field, ListTable, Page, useAction, useLoad, when } from '../ui';
import { useProjects } from './projects';
import { type Alert, alertSeverities as severities, alertStatuses as statuses } from '../generated/api';

/** How often a monitoring system raised it again (dedupKey repeats, docs/integrations.md). */
const seen = (alert: Alert) => (alert.occurrences === 1 ? 'once' : `${alert.occurrences} times, last ${when(alert.lastSeenAt)}`);
/** New alerts appear without a reload: the list is read again this often. */
const pollEveryMs = 5000;

export function Alerts(props: { session: Session }) {
  const [filters, setFilters] = useState({ projectId: '', status: '', severity: '' });
  const query = new URLSearchParams(Object.entries({ limit: '100', ...filters }).filter(([, value]) => value)).toString();
  const alerts = useLoad(() => api<List<Alert>>('GET', `alerts?${query}`), [query]);
  const projects = useProjects();
  const users = useLoad(() => api<List<{ id: string; email: string; status: string }>>('GET', 'users?status=active&limit=100'));
  const { error, run } = useAction();
  const canWork = props.session.user.role !== 'viewer';
  useEffect(() => {
    const timer = window.setInterval(alerts.reload, pollEveryMs);
    return () => window.clearInterval(timer);
  }, [alerts.reload]);
  const act = (path: string, body: unknown = {}) =>
    void run(async () => {
      await api('POST', path, body);
      alerts.reload();
    });
  const filter = (name: keyof typeof filters, options: { value: string; label: string }[], label: string) => (
    <Field label={label}>
      <select value={filters[name]} onChange={(e) => setFilters({ ...filters, [name]: e.currentTarget.value })}>
        <option value="">All</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
  const projectName = (id: string) => projects.value?.data.find((project) => project.id === id)?.name ?? id;
  return (
    <Page title="Alerts" intro="New alerts appear here within seconds. Acknowledge what you are looking at, assign it, resolve it when fixed.">
      <div class="row" role="search">
        {filter('projectId', projects.value?.data.map((project) => ({ value: project.id, label: project.name })) ?? [], 'Project')}
        {filter('status', statuses.map((value) => ({ value, label: value })), 'Status')}
        {filter('severity', severities.map((value) => ({ value, label: value })), 'Severity')}
      </div>
      <ListTable
        rows={alerts.value?.data}
        error={error ?? alerts.error}
        empty="No alerts match. Alerts arrive through the API (POST /api/v1/alerts) or from your integrations; create a project first if you have none."
        caption="Alerts, newest first"
        columns={['Title', 'Severity', 'Status', 'Project', 'Created', 'Seen', 'Assignee']}
        withActions={canWork}
        live
        cells={(alert) => (
          <>
            <td>{alert.title}</td>
            <td>
              <span class={`severity ${alert.severity}`}>{alert.severity}</span>
            </td>
            <td>{alert.status}</td>
            <td>{projectName(alert.projectId)}</td>
            <td>{when(alert.createdAt)}</td>
            <td>{seen(alert)}</td>
            <td>
              {canWork && alert.status !== 'resolved' ? (
                <select aria-label={`Assignee of ${alert.title}`} value={alert.assigneeId ?? ''} onChange={(e) => act(`alerts/${alert.id}/assign`, { userId: e.currentTarget.value })}>
                  <option value="" disabled>
                    Nobody
                  </option>
                  {users.value?.data.map((user) => (
                    <option key={user.id} value={user.id}>
                      {user.email}
                    </option>
                  ))}
                </select>
              ) : (
                (users.value?.data.find((user) => user.id === alert.assigneeId)?.email ?? '—')
              )}
            </td>
            {canWork && (
              <td>
                <div class="row actions">
                  {alert.status === 'active' && (
                    <button type="button" class="secondary" onClick={() => act(`alerts/${alert.id}/acknowledge`)}>
                      Acknowledge
                    </button>
                  )}
                  {alert.status !== 'resolved' && (
                    <button type="button" class="secondary" onClick={() => act(`alerts/${alert.id}/resolve`)}>
                      Resolve
                    </button>
                  )}
                </div>
              </td>
            )}
          </>
        )}
      />
    </Page>
  );
}
