import { useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Empty, ErrorNote, Field, Loading, Page, useAction, useLoad, when } from '../ui';
import { ProjectSelect, useProjects } from './projects';
import { type Connection } from '../generated/api';

const blank = { name: '', dbType: 'postgresql', host: '', port: '5432', database: '', username: '', password: '' };

export function Connections(props: { session: Session }) {
  const isAdmin = props.session.user.role === 'admin';
  const canImport = props.session.user.role !== 'viewer';
  const connections = useLoad(() => api<List<Connection>>('GET', 'connections?limit=100'));
  const projects = useProjects();
  const [form, setForm] = useState(blank);
  const [target, setTarget] = useState({ projectId: '', table: '' });
  const { error, busy, run } = useAction();
  const act = (work: () => Promise<unknown>) =>
    void run(async () => {
      await work();
      connections.reload();
    });
  const input = (name: keyof typeof blank, label: string, type = 'text') => (
    <Field label={label}>
      <input type={type} required value={form[name]} onInput={(e) => setForm({ ...form, [name]: e.currentTarget.value })} />
    </Field>
  );
  const add = (event: Event) => {
    event.preventDefault();
    act(async () => {
      await api('POST', 'connections', { ...form, port: Number(form.port) });
      setForm(blank);
    });
  };
  return (
    <Page title="Connections" intro="Connect a PostgreSQL or MySQL database (read-only credentials are best) and import a table into a project as a dataset.">
      {isAdmin && (
        <form onSubmit={add}>
          <div class="row">
            {input('name', 'Name')}
            <Field label="Type">
              <select value={form.dbType} onChange={(e) => setForm({ ...form, dbType: e.currentTarget.value })}>
                <option value="postgresql">PostgreSQL</option>
                <option value="mysql">MySQL</option>
              </select>
            </Field>
            {input('host', 'Host')}
            {input('port', 'Port', 'number')}
          </div>
          <div class="row">
            {input('database', 'Database')}
            {input('username', 'User')}
            {input('password', 'Password', 'password')}
          </div>
          <button type="submit" disabled={busy}>
            Add connection
          </button>
        </form>
      )}
      <ErrorNote error={error ?? connections.error} />
      {!connections.value && !connections.error && <Loading />}
      {connections.value && connections.value.data.length === 0 && (
        <Empty>{isAdmin ? 'No connections yet. Add a database above, then test it.' : 'No connections yet. An admin can add one.'}</Empty>
      )}
      {connections.value?.data.map((connection) => (
        <article key={connection.id} class="card" aria-label={`Connection ${connection.name}`}>
          <h2>{connection.name}</h2>
          <p>
            {connection.dbType} · {connection.host}:{connection.port}/{connection.database} · <strong>{connection.status}</strong>
            {connection.lastError && <> · {connection.lastError}</>} · checked {when(connection.lastCheckedAt)}
          </p>
          <div class="row">
            {isAdmin && (
              <button type="button" class="secondary" onClick={() => act(() => api('POST', `connections/${connection.id}/test`, {}))}>
                Test {connection.name}
              </button>
            )}
            {canImport && (
              <form
                class="row"
                onSubmit={(event) => {
                  event.preventDefault();
                  act(() => api('POST', `connections/${connection.id}/import`, target));
                }}
              >
                <ProjectSelect projects={projects.value?.data ?? []} value={target.projectId} onChange={(projectId) => setTarget({ ...target, projectId })} />
                <Field label="Table">
                  <input required value={target.table} onInput={(e) => setTarget({ ...target, table: e.currentTarget.value })} />
                </Field>
                <button type="submit" disabled={busy || !target.projectId}>
                  Import
                </button>
              </form>
            )}
          </div>
        </article>
      ))}
    </Page>
  );
}
