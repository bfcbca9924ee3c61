import { useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Empty, ErrorNote, Field, Loading, Page, ShownOnce, useAction, useLoad, when } from '../ui';
import { type Dashboard, type EmbedToken, LiveDashboard, mintEmbedToken, WidgetTables } from './dashboard-view';
import { type Project, ProjectSelect, useProjects } from './projects';

const alertsBySeverity = { title: 'Alerts by severity', kind: 'bar', query: { source: 'alerts', measure: { fn: 'count' }, groupBy: 'severity' } };

function snippetFor(dashboardId: string, token: string): string {
  return `<script src="${window.location.origin}/embed/sdk.js" async></script>\n<vigil-dashboard token="${token}" dashboard="${dashboardId}"></vigil-dashboard>`;
}

function CreateDashboard(props: { projects: Project[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [projectId, setProjectId] = useState('');
  const [widget, setWidget] = useState<'severity' | 'chat'>('severity');
  const [queryId, setQueryId] = useState('');
  const { error, busy, run } = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const widgets = widget === 'severity' ? [alertsBySeverity] : [];
      const created = (await api<{ data: Dashboard }>('POST', 'dashboards', { name, projectId, widgets })).data;
      if (widget === 'chat') {
        // Two calls: a chat answer becomes a widget only through POST /dashboards/{id}/widgets.
        // If the answer is refused, the empty dashboard is removed so nothing half-made stays.
        await api('POST', `dashboards/${created.id}/widgets`, { fromQueryId: queryId.trim(), kind: 'bar' }).catch(async (failure: unknown) => {
          await api('DELETE', `dashboards/${created.id}`);
          throw failure;
        });
      }
      setName('');
      setQueryId('');
      props.onCreated();
    });
  };
  return (
    <form onSubmit={create} aria-label="New dashboard">
      <div class="row">
        <Field label="Name">
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <ProjectSelect projects={props.projects} value={projectId} onChange={setProjectId} />
      </div>
      <fieldset>
        <legend>Widget</legend>
        <label class="check">
          <input type="radio" name="widget" checked={widget === 'severity'} onChange={() => setWidget('severity')} />
          Alerts by severity (a count per severity)
        </label>
        <label class="check">
          <input type="radio" name="widget" checked={widget === 'chat'} onChange={() => setWidget('chat')} />
          From an AI chat answer
        </label>
        {widget === 'chat' && (
          <Field label="Query id of the answer (qry_…, shown under each answer in AI chat)">
            <input required pattern="qry_.+" value={queryId} onInput={(e) => setQueryId(e.currentTarget.value)} />
          </Field>
        )}
      </fieldset>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        Create dashboard
      </button>
    </form>
  );
}

function EmbedPanel(props: { dashboard: Dashboard }) {
  const [token, setToken] = useState<EmbedToken | undefined>(undefined);
  const { error, busy, run } = useAction();
  const mint = () => void run(async () => setToken(await mintEmbedToken(props.dashboard.id, 3600)));
  return (
    <div class="embed-panel">
      <h3>Embed {props.dashboard.name}</h3>
      <p class="intro">
        Put these two tags into your page. The token below is valid for one hour; in production, mint one per page view on your backend (see docs/dashboards.md).
      </p>
      <button type="button" disabled={busy} onClick={mint}>
        Mint a token and show the snippet
      </button>
      <ErrorNote error={error} />
      {token && (
        <ShownOnce
          label={`The embed snippet (its token expires ${when(token.expiresAt)}).`}
          value={snippetFor(props.dashboard.id, token.token)}
          onDone={() => setToken(undefined)}
        />
      )}
    </div>
  );
}

export function Dashboards(props: { session: Session }) {
  const canWrite = props.session.user.role !== 'viewer';
  const dashboards = useLoad(() => api<List<Dashboard>>('GET', 'dashboards?limit=100'));
  const projects = useProjects();
  const [open, setOpen] = useState<{ id: string; panel: 'view' | 'embed' } | undefined>(undefined);
  const { error, run } = useAction();
  const toggle = (id: string, panel: 'view' | 'embed') => setOpen(open?.id === id && open.panel === panel ? undefined : { id, panel });
  const remove = (dashboard: Dashboard) =>
    window.confirm(`Delete ${dashboard.name}? Its embed tokens stop working.`) &&
    void run(async () => {
      await api('DELETE', `dashboards/${dashboard.id}`);
      if (open?.id === dashboard.id) setOpen(undefined);
      dashboards.reload();
    });
  const projectName = (id: string) => projects.value?.data.find((project) => project.id === id)?.name ?? id;
  return (
    <Page title="Dashboards" intro="Charts of a project's alerts and datasets, live here and embeddable in your own product.">
      {canWrite && projects.value && <CreateDashboard projects={projects.value.data} onCreated={dashboards.reload} />}
      <ErrorNote error={error ?? dashboards.error ?? projects.error} />
      {!dashboards.value && !dashboards.error && <Loading />}
      {dashboards.value && dashboards.value.data.length === 0 && (
        <Empty>
          {canWrite
            ? 'No dashboards yet. Create one above: give it a name, choose a project, and start with alerts by severity or with an AI chat answer.'
            : 'No dashboards yet. A member or admin can create one here, or over the API with POST /api/v1/dashboards.'}
        </Empty>
      )}
      {dashboards.value?.data.map((dashboard) => (
        <article key={dashboard.id} class="card" aria-label={`Dashboard ${dashboard.name}`}>
          <h2>{dashboard.name}</h2>
          <p class="intro">
            {projectName(dashboard.projectId)} · {dashboard.widgets.length} widget{dashboard.widgets.length === 1 ? '' : 's'} · created {when(dashboard.createdAt)}
          </p>
          <div class="row">
            <button type="button" class="secondary" aria-expanded={open?.id === dashboard.id && open.panel === 'view'} onClick={() => toggle(dashboard.id, 'view')}>
              Open
            </button>
            {canWrite && (
              <>
                <button type="button" class="secondary" aria-expanded={open?.id === dashboard.id && open.panel === 'embed'} onClick={() => toggle(dashboard.id, 'embed')}>
                  Embed
                </button>
                <button type="button" class="danger" onClick={() => remove(dashboard)}>
                  Delete
                </button>
              </>
            )}
          </div>
          {open?.id === dashboard.id && open.panel === 'view' && (canWrite ? <LiveDashboard dashboard={dashboard} /> : <WidgetTables dashboard={dashboard} />)}
          {open?.id === dashboard.id && open.panel === 'embed' && <EmbedPanel dashboard={dashboard} />}
        </article>
      ))}
    </Page>
  );
}
