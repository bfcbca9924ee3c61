import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api';
import type { Dashboard, DashboardData, Dataset, List, Session, WidgetInput } from '../api-types';
import { followLink } from '../router';
import { ErrorNote, Field, Loading, messageOf, Page, useAction, useLoad, when } from '../ui';
import { EmbedPanel, LiveDashboard, WidgetTables } from './dashboard-view';
import { WidgetEditor } from './widget-editor';

/** Edits are saved this long after the last keystroke or choice, then the preview reads them again. */
const saveAfterMs = 600;

const newWidget = (): WidgetInput => ({ title: 'Alerts by severity', kind: 'bar', query: { source: 'alerts', measure: { fn: 'count' }, groupBy: 'severity' } });
const inputOf = (dashboard: Dashboard): WidgetInput[] => dashboard.widgets.map(({ title, kind, query }) => ({ title, kind, query }));

/** A refusal's per-field problems, by widget: `widgets[2].query.sql` belongs to the third widget. */
function problemsByWidget(failure: unknown): Map<number, string> {
  const byWidget = new Map<number, string>();
  if (!(failure instanceof ApiFailure)) return byWidget;
  for (const detail of failure.details) {
    const index = /^\/?widgets[[/](\d+)/.exec(detail.field)?.[1];
    if (index !== undefined) byWidget.set(Number(index), `Not saved: ${detail.message} (${detail.field})`);
  }
  return byWidget;
}

/** A chat answer's SQL as a new widget (POST /dashboards/{id}/widgets {fromQueryId}). */
function FromChatAnswer(props: { dashboardId: string; onAdded: (dashboard: Dashboard) => void }) {
  const [queryId, setQueryId] = useState('');
  const { error, busy, run } = useAction();
  const add = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      props.onAdded((await api<{ data: Dashboard }>('POST', `dashboards/${props.dashboardId}/widgets`, { fromQueryId: queryId.trim(), kind: 'table' })).data);
      setQueryId('');
    });
  };
  return (
    <form class="row" onSubmit={add} aria-label="Add a widget from an AI chat answer">
      <Field label="Or from an AI chat answer (its qry_… id)">
        <input required pattern="qry_.+" value={queryId} onInput={(e) => setQueryId(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="secondary" disabled={busy}>
        Add from answer
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/**
 * A dashboard's page (`/dashboards/{id}`): members build it here — any number of widgets of every
 * kind, each from the project's alerts, a dataset's real columns, or SQL — with every change saved
 * through PATCH /dashboards/{id} and the preview (the embed component itself) read again. Viewers
 * see each widget's current result.
 */
export function DashboardBuilder(props: { session: Session; id: string }) {
  const canWrite = props.session.user.role !== 'viewer';
  const loaded = useLoad(() => api<{ data: Dashboard }>('GET', `dashboards/${encodeURIComponent(props.id)}`), [props.id]);
  const dashboard = loaded.value?.data;
  const datasets = useLoad(
    () => (dashboard ? api<List<Dataset>>('GET', `datasets?projectId=${dashboard.projectId}&limit=100`) : Promise.resolve(undefined)),
    [dashboard?.projectId],
  );
  const [name, setName] = useState('');
  const [widgets, setWidgets] = useState<WidgetInput[] | undefined>(undefined);
  const [state, setState] = useState<'saved' | 'saving' | 'unsaved'>('saved');
  const [error, setError] = useState<string | undefined>(undefined);
  const [widgetErrors, setWidgetErrors] = useState(new Map<number, string>());
  const [version, setVersion] = useState(0);
  const [data, setData] = useState<DashboardData | undefined>(undefined);
  const edited = useRef(false);

  useEffect(() => {
    if (!dashboard || widgets) return;
    setName(dashboard.name);
    setWidgets(inputOf(dashboard));
  }, [dashboard]);

  const readData = () =>
    api<{ data: DashboardData }>('GET', `dashboards/${encodeURIComponent(props.id)}/data`).then(
      (answer) => setData(answer.data),
      () => setData(undefined),
    );
  useEffect(() => void readData(), [props.id, version]);

  useEffect(() => {
    if (!edited.current || !widgets) return;
    setState('unsaved');
    const timer = window.setTimeout(() => {
      setState('saving');
      api<{ data: Dashboard }>('PATCH', `dashboards/${encodeURIComponent(props.id)}`, { name: name.trim() || dashboard?.name, widgets }).then(
        () => {
          setState('saved');
          setError(undefined);
          setWidgetErrors(new Map());
          setVersion((one) => one + 1);
        },
        (failure: unknown) => {
          setState('unsaved');
          const byWidget = problemsByWidget(failure);
          setWidgetErrors(byWidget);
          setError(byWidget.size ? undefined : `Not saved: ${messageOf(failure)}`);
        },
      );
    }, saveAfterMs);
    return () => window.clearTimeout(timer);
  }, [widgets, name]);

  const change = (next: WidgetInput[]) => {
    edited.current = true;
    setWidgets(next);
  };
  const move = (index: number, offset: -1 | 1) => {
    const next = [...widgets!];
    [next[index], next[index + offset]] = [next[index + offset], next[index]];
    change(next);
  };

  if (!dashboard || !widgets) {
    return (
      <Page title={loaded.error ? 'Dashboard not found' : 'Dashboard'}>
        <ErrorNote error={loaded.error} />
        {!loaded.error && <Loading />}
      </Page>
    );
  }
  const resultErrors = new Map((data?.widgets ?? []).map((result, index) => [index, result.error ? `The query failed: ${result.error}` : undefined]));
  return (
    <Page title={dashboard.name}>
      <p class="breadcrumb">
        <a href="/dashboards" onClick={(event) => followLink(event, '/dashboards')}>
          ← All dashboards
        </a>
      </p>
      {canWrite ? (
        <div class="builder">
          <section class="builder-editor" aria-labelledby="widgets-title">
            <Field label="Dashboard name">
              <input
                required
                maxLength={200}
                value={name}
                onInput={(e) => {
                  edited.current = true;
                  setName(e.currentTarget.value);
                }}
              />
            </Field>
            <h2 id="widgets-title">Widgets</h2>
            <p class="save-state" role="status" data-testid="save-state">
              {state === 'saved' ? `All changes saved${data ? ` · data as of ${when(data.refreshedAt)}` : ''}` : state === 'saving' ? 'Saving…' : 'Unsaved changes'}
            </p>
            <ErrorNote error={error} />
            {widgets.map((widget, index) => (
              <WidgetEditor
                key={index}
                widget={widget}
                index={index}
                count={widgets.length}
                datasets={(datasets.value?.data ?? []).filter((one) => one.status === 'ready')}
                error={widgetErrors.get(index) ?? (state === 'saved' ? resultErrors.get(index) : undefined)}
                onChange={(next) => change(widgets.map((one, at) => (at === index ? next : one)))}
                onMove={(offset) => move(index, offset)}
                onRemove={() => change(widgets.filter((_, at) => at !== index))}
              />
            ))}
            <div class="row">
              <button type="button" onClick={() => change([...widgets, newWidget()])}>
                Add a widget
              </button>
            </div>
            <FromChatAnswer
              dashboardId={dashboard.id}
              onAdded={(saved) => {
                setWidgets(inputOf(saved));
                setVersion((one) => one + 1);
              }}
            />
          </section>
          <section class="builder-preview" aria-labelledby="preview-title">
            <h2 id="preview-title">Preview</h2>
            <p class="intro">Exactly what the embed shows, read again after each saved change.</p>
            {widgets.length === 0 ? <p class="empty">Add a widget to see it here.</p> : <LiveDashboard dashboard={dashboard} version={version} />}
            <EmbedPanel dashboard={dashboard} />
          </section>
        </div>
      ) : (
        <WidgetTables dashboard={dashboard} />
      )}
    </Page>
  );
}
