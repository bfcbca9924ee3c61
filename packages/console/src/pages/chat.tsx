import { useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Empty, ErrorNote, Field, Page, useAction, useLoad, when } from '../ui';
import { ProjectSelect, useProjects } from './projects';
import { type HistoryEntry } from '../generated/api';

export function Chat(props: { session: Session }) {
  const projects = useProjects();
  const [projectId, setProjectId] = useState('');
  const [message, setMessage] = useState('');
  const history = useLoad(
    () => (projectId ? api<List<HistoryEntry>>('GET', `history?projectId=${projectId}&limit=50`) : Promise.resolve(undefined)),
    [projectId],
  );
  const { error, busy, run } = useAction();
  const ask = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await api('POST', 'chat', { message, projectId });
      setMessage('');
      history.reload();
    });
  };
  const entries = history.value?.data ?? [];
  return (
    <Page title="AI chat" intro="Ask a question in plain words about a project's alerts and datasets; the answer says which query it ran.">
      <div class="row">
        <ProjectSelect projects={projects.value?.data ?? []} value={projectId} onChange={setProjectId} />
      </div>
      {props.session.user.role !== 'viewer' && (
        <form onSubmit={ask}>
          <Field label="Your question">
            <textarea required maxLength={4000} rows={3} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={busy || !projectId}>
            {busy ? 'Thinking…' : 'Ask'}
          </button>
        </form>
      )}
      <ErrorNote error={error ?? history.error} />
      {!projectId && <Empty>Choose a project to see its questions and ask a new one.</Empty>}
      {projectId && history.value && entries.length === 0 && <Empty>No questions yet in this project. Ask one above, for example "How many critical alerts this week?"</Empty>}
      <ol class="history" aria-live="polite">
        {entries.map((entry) => (
          <li key={entry.id} class="card">
            <p class="question">
              <strong>Q:</strong> {entry.question}
            </p>
            <p class="answer">
              <strong>A:</strong> {entry.answer}
            </p>
            {entry.sql && (
              <details>
                <summary>Query that ran</summary>
                <code>{entry.sql}</code>
              </details>
            )}
            <p class="intro">{when(entry.createdAt)}</p>
          </li>
        ))}
      </ol>
    </Page>
  );
}
