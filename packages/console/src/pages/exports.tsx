import { useEffect, useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Empty, ErrorNote, Field, Loading, Page, ScrollRegion, useAction, useLoad, when } from '../ui';

interface Export {
  id: string;
  resource: string;
  format: string;
  status: 'pending' | 'completed' | 'failed';
  fileName: string | null;
  error: string | null;
  createdAt: string;
}

export function Exports(props: { session: Session }) {
  const exports = useLoad(() => api<List<Export>>('GET', 'exports?limit=50'));
  const [resource, setResource] = useState('alerts');
  const [format, setFormat] = useState('csv');
  const { error, busy, run } = useAction();
  const pending = exports.value?.data.some((one) => one.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = window.setTimeout(exports.reload, 1500);
    return () => window.clearTimeout(timer);
  }, [exports.value]);
  const start = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await api('POST', 'exports', { resource, format });
      exports.reload();
    });
  };
  return (
    <Page title="Exports" intro="Export alerts or the AI question history as CSV, JSON or Excel; files are kept for a limited time.">
      {props.session.user.role !== 'viewer' && (
        <form class="row" onSubmit={start}>
          <Field label="What">
            <select value={resource} onChange={(e) => setResource(e.currentTarget.value)}>
              <option value="alerts">Alerts</option>
              <option value="history">AI question history</option>
            </select>
          </Field>
          <Field label="Format">
            <select value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
              <option value="csv">CSV</option>
              <option value="json">JSON</option>
              <option value="xlsx">Excel</option>
            </select>
          </Field>
          <button type="submit" disabled={busy}>
            Start export
          </button>
        </form>
      )}
      <ErrorNote error={error ?? exports.error} />
      {!exports.value && !exports.error && <Loading />}
      {exports.value && exports.value.data.length === 0 && <Empty>No exports yet. Start one above; it is ready to download in a few seconds.</Empty>}
      {exports.value && exports.value.data.length > 0 && (
        <ScrollRegion label="Exports">
        <table>
          <caption>Exports</caption>
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Format</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {exports.value.data.map((one) => (
              <tr key={one.id}>
                <td>{one.resource}</td>
                <td>{one.format}</td>
                <td>{one.status === 'failed' ? `failed: ${one.error ?? ''}` : one.status}</td>
                <td>{when(one.createdAt)}</td>
                <td>{one.status === 'completed' ? <a href={`/api/v1/exports/${one.id}/download`}>Download {one.fileName}</a> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </ScrollRegion>
      )}
    </Page>
  );
}
