import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorNote, Loading, useLoad, when } from '../ui';
import type { CreatedEmbedToken as EmbedToken, Dashboard, DashboardData } from '../generated/api';

export type { Dashboard, EmbedToken };

/** Mints a short-lived embed token with the session (POST /embed/tokens: the API's own route and rules). */
export const mintEmbedToken = async (dashboardId: string, expiresInSeconds: number) =>
  (await api<{ data: EmbedToken }>('POST', 'embed/tokens', { dashboardId, expiresInSeconds })).data;

/** The console's live view lasts as long as it is open: a 10-minute token, replaced a minute before it ends. */
const viewTokenSeconds = 600;
const renewEveryMs = (viewTokenSeconds - 60) * 1000;

/** Loads the server's `<vigil-dashboard>` script once per page (same origin, so the console's CSP allows it). */
function loadEmbedScript(): void {
  if (document.querySelector('script[data-vigil-embed]')) return;
  const script = document.createElement('script');
  script.src = '/embed/sdk.js';
  script.async = true;
  script.dataset.vigilEmbed = '';
  document.head.append(script);
}

/** The dashboard as customers see it: the same `<vigil-dashboard>` component, with a token minted by this session. */
export function LiveDashboard(props: { dashboard: Dashboard }) {
  const container = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    loadEmbedScript();
    const element = document.createElement('vigil-dashboard');
    element.setAttribute('dashboard', props.dashboard.id);
    element.addEventListener('vigil-error', (event) => setError((event as CustomEvent<{ message: string }>).detail.message));
    element.addEventListener('vigil-load', () => setError(undefined));
    const renew = () =>
      mintEmbedToken(props.dashboard.id, viewTokenSeconds).then(
        (minted) => element.setAttribute('token', minted.token),
        () => setError('A token to show this dashboard could not be made. Reload the page and try again.'),
      );
    void renew().then(() => container.current?.append(element));
    const timer = setInterval(renew, renewEveryMs);
    return () => {
      clearInterval(timer);
      element.remove();
    };
  }, [props.dashboard.id]);
  return (
    <div class="live-dashboard">
      <ErrorNote error={error} />
      <div ref={container} />
    </div>
  );
}

/**
 * A viewer's reading of the dashboard: embed tokens carry data outside the organization, so only
 * members mint them; viewers read the same results from GET /dashboards/{id}/data as tables.
 */
export function WidgetTables(props: { dashboard: Dashboard }) {
  const data = useLoad(() => api<{ data: DashboardData }>('GET', `dashboards/${props.dashboard.id}/data`), [props.dashboard.id]);
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.value) return <Loading />;
  return (
    <div class="widget-tables">
      <p class="intro">As of {when(data.value.data.refreshedAt)}.</p>
      {data.value.data.widgets.map((widget) => (
        <table key={widget.id}>
          <caption>{widget.title}</caption>
          <thead>
            <tr>
              {widget.columns.map((column) => (
                <th scope="col" key={column}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {widget.error && (
              <tr>
                <td colSpan={Math.max(widget.columns.length, 1)}>{widget.error}</td>
              </tr>
            )}
            {widget.rows.map((row, index) => (
              <tr key={index}>
                {widget.columns.map((column) => (
                  <td key={column}>{String(row[column] ?? '')}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
