import { useState } from 'preact/hooks';
import { api, type List, upload } from '../api';
import { Empty, ErrorNote, Loading, Page, ScrollRegion, useAction, useLoad, when } from '../ui';
import { ProjectSelect, useProjects } from './projects';
import { type Dataset } from '../generated/api';

function Preview(props: { dataset: Dataset }) {
  const rows = useLoad(() => api<{ data: Record<string, unknown>[] }>('GET', `datasets/${props.dataset.id}/rows?limit=20`), [props.dataset.id]);
  const { columns } = props.dataset;
  return (
    <div class="preview">
      <h2>{props.dataset.name}</h2>
      <p>
        {props.dataset.rowCount} rows · {columns.length} columns
      </p>
      <ErrorNote error={rows.error} />
      {rows.value && (
        <div class="scroll" tabIndex={0} role="region" aria-label={`Rows of ${props.dataset.name}`}>
          <table>
            <caption>First rows of {props.dataset.name}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th scope="col" key={column.name}>
                    {column.originalName}
                    <span class="type"> {column.type}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.value.data.map((row, index) => (
                <tr key={index}>
                  {columns.map((column) => (
                    <td key={column.name}>{row[column.name] === null ? '' : String(row[column.name])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function Datasets() {
  const projects = useProjects();
  const [projectId, setProjectId] = useState('');
  const datasets = useLoad(() => api<List<Dataset>>('GET', `datasets?limit=100${projectId ? `&projectId=${projectId}` : ''}`), [projectId]);
  const [progress, setProgress] = useState<number | undefined>(undefined);
  const [shown, setShown] = useState<Dataset | undefined>(undefined);
  const { error, busy, run } = useAction();
  const send = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    if (!file) return;
    const body = new FormData();
    body.append('file', file);
    setProgress(0);
    void run(async () => {
      const answer = await upload<{ data: Dataset }>(`projects/${projectId}/datasets`, body, setProgress);
      setShown(answer.data);
      form.reset();
      datasets.reload();
    }).finally(() => setProgress(undefined));
  };
  return (
    <Page title="Datasets" intro="Upload a CSV or Excel file into a project; Vigil detects each column's type, and the AI chat can then answer questions about it.">
      <form class="row" onSubmit={send}>
        <ProjectSelect projects={projects.value?.data ?? []} value={projectId} onChange={setProjectId} />
        <label class="field">
          <span>File (CSV or XLSX)</span>
          <input name="file" type="file" accept=".csv,.xlsx,text/csv" required />
        </label>
        <button type="submit" disabled={busy || !projectId}>
          Upload
        </button>
      </form>
      {progress !== undefined && (
        <label class="field">
          <span>Uploading…</span>
          <progress max={1} value={progress} aria-label="Upload progress">
            {Math.round(progress * 100)}%
          </progress>
        </label>
      )}
      <ErrorNote error={error ?? datasets.error ?? projects.error} />
      {projects.value && projects.value.data.length === 0 && <Empty>Create a project first (Projects page), then upload a file into it.</Empty>}
      {!datasets.value && !datasets.error && <Loading />}
      {datasets.value && datasets.value.data.length === 0 && <Empty>No datasets yet. Choose a project and upload a CSV or Excel file above.</Empty>}
      {datasets.value && datasets.value.data.length > 0 && (
        <ScrollRegion label="Datasets">
        <table>
          <caption>Datasets</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Rows</th>
              <th scope="col">Columns</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {datasets.value.data.map((dataset) => (
              <tr key={dataset.id}>
                <td>
                  <button type="button" class="link" onClick={() => setShown(dataset)}>
                    {dataset.name}
                  </button>
                </td>
                <td>{dataset.status === 'failed' ? `failed: ${dataset.error ?? ''}` : dataset.status}</td>
                <td>{dataset.rowCount}</td>
                <td>{dataset.columns.map((column) => `${column.originalName} (${column.type})`).join(', ')}</td>
                <td>{when(dataset.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </ScrollRegion>
      )}
      {shown && shown.status === 'ready' && <Preview dataset={shown} />}
    </Page>
  );
}
