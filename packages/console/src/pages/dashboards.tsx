import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Dashboard, List, Project, Session } from '../api-types';
import { followLink, navigate } from '../router';
import { Empty, ErrorNote, Field, Loading, Page, useAction, useLoad, when } from '../ui';
import { ProjectSelect, useProjects } from './projects';

function CreateDashboard(props: { projects: Project[] }) {
  const [name, setName] = useState('');
  const [projectId, setProjectId] = useState('');
  const { error, busy, run } = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const created = (await api<{ data: Dashboard }>('POST', 'dashboards', { name, projectId, widgets: [] })).data;
      navigate(`/dashboards/${created.id}`);
    });
  };
  return (
    <form onSubmit={create} aria-label="New dashboard">
      <div class="row">
        <Field label="Name">
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <ProjectSelect projects={props.projects} value={projectId} onChange={setProjectId} />
        <button type="submit" disabled={busy}>
          Create and add widgets
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

export function Dashboards(props: { session: Session }) {
  const canWrite = props.session.user.role !== 'viewer';
  const dashboards = useLoad(() => api<List<Dashboard>>('GET', 'dashboards?limit=100'));
  const projects = useProjects();
  const { error, run } = useAction();
  const remove = (dashboard: Dashboard) =>
    window.confirm(`Delete ${dashboard.name}? Its embed tokens stop working.`) &&
    void run(async () => {
      await api('DELETE', `dashboards/${dashboard.id}`);
      dashboards.reload();
    });
  const projectName = (id: string) => projects.value?.data.find((project) => project.id === id)?.name ?? id;
  return (
    <Page title="Dashboards" intro="Charts of a project's alerts and datasets, built here and embeddable in your own product.">
      {canWrite && projects.value && <CreateDashboard projects={projects.value.data} />}
      <ErrorNote error={error ?? dashboards.error ?? projects.error} />
      {!dashboards.value && !dashboards.error && <Loading />}
      {dashboards.value && dashboards.value.data.length === 0 && (
        <Empty>
          {canWrite
            ? 'No dashboards yet. Create one above: give it a name and a project, then add widgets.'
            : 'No dashboards yet. A member or admin can create one here, or over the API with POST /api/v1/dashboards.'}
        </Empty>
      )}
      {dashboards.value?.data.map((dashboard) => (
        <article key={dashboard.id} class="card" aria-label={`Dashboard ${dashboard.name}`}>
          <h2>
            <a href={`/dashboards/${dashboard.id}`} onClick={(event) => followLink(event, `/dashboards/${dashboard.id}`)}>
              {dashboard.name}
            </a>
          </h2>
          <p class="intro">
            {projectName(dashboard.projectId)} · {dashboard.widgets.length} widget{dashboard.widgets.length === 1 ? '' : 's'} · changed {when(dashboard.updatedAt)}
          </p>
          {canWrite && (
            <div class="row actions">
              <button type="button" class="danger" onClick={() => remove(dashboard)}>
                Delete {dashboard.name}
              </button>
            </div>
          )}
        </article>
      ))}
    </Page>
  );
}
