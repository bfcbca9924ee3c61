import { useState } from 'preact/hooks';
import { api } from '../api';
import type { List, Project, Session } from '../api-types';
import { Field, ListTable, Page, useAction, useLoad, when } from '../ui';

export const useProjects = () => useLoad(() => api<List<Project>>('GET', 'projects?limit=100'));

/** A project picker for the pages that work inside one project. */
export function ProjectSelect(props: { projects: Project[]; value: string; onChange: (id: string) => void }) {
  return (
    <Field label="Project">
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="" disabled>
          Choose a project
        </option>
        {props.projects.map((project) => (
          <option key={project.id} value={project.id}>
            {project.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function Projects(props: { session: Session }) {
  const projects = useProjects();
  const [name, setName] = useState('');
  const [area, setArea] = useState('');
  const { error, busy, run } = useAction();
  const canWork = props.session.user.role !== 'viewer';
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await api('POST', 'projects', { name, ...(area ? { area } : {}) });
      setName('');
      setArea('');
      projects.reload();
    });
  };
  return (
    <Page title="Projects" intro="A project groups alerts, datasets and AI questions, for one service or team.">
      {canWork && (
        <form class="row" onSubmit={create}>
          <Field label="Name">
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Area (optional)">
            <input maxLength={200} value={area} onInput={(e) => setArea(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={busy}>
            Create project
          </button>
        </form>
      )}
      <ListTable
        rows={projects.value?.data}
        error={error ?? projects.error}
        empty="No projects yet. Create your first one above; alerts and datasets belong to a project."
        caption="Projects"
        columns={['Name', 'Area', 'Id', 'Created']}
        withActions={canWork}
        cells={(project) => (
          <>
            <td>{project.name}</td>
            <td>{project.area ?? '—'}</td>
            <td>
              <code>{project.id}</code>
            </td>
            <td>{when(project.createdAt)}</td>
            {canWork && (
              <td>
                <button
                  type="button"
                  class="danger"
                  onClick={() =>
                    window.confirm(`Delete ${project.name} with its alerts and datasets?`) &&
                    void run(async () => {
                      await api('DELETE', `projects/${project.id}`);
                      projects.reload();
                    })
                  }
                >
                  Delete {project.name}
                </button>
              </td>
            )}
          </>
        )}
      />
    </Page>
  );
}
