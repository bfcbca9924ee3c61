import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import type { Dashboard, DashboardData, EmbedToken } from '../api-types';
import { currentTheme } from '../theme';
import { ErrorNote, Loading, ScrollRegion, ShownOnce, useAction, useLoad, when } from '../ui';

type EmbedElement = HTMLElement & { refresh?: () => Promise<void> };

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
export function LiveDashboard(props: { dashboard: Dashboard; version?: number }) {
  const container = useRef<HTMLDivElement>(null);
  const element = useRef<EmbedElement | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!props.version) return;
    void element.current?.refresh?.();
    // The embed API may answer from its short results cache (embedResultsMaxAgeMs, 2 s): read once
    // more after it, so the preview always ends on the saved change.
    const again = window.setTimeout(() => void element.current?.refresh?.(), 2500);
    return () => window.clearTimeout(again);
  }, [props.version]);
  useEffect(() => {
    loadEmbedScript();
    const embedded: EmbedElement = document.createElement('vigil-dashboard');
    element.current = embedded;
    embedded.setAttribute('dashboard', props.dashboard.id);
    embedded.setAttribute('theme', currentTheme());
    const themed = (event: Event) => embedded.setAttribute('theme', (event as CustomEvent<string>).detail);
    window.addEventListener('vigil:theme', themed);
    embedded.addEventListener('vigil-error', (event) => setError((event as CustomEvent<{ message: string }>).detail.message));
    embedded.addEventListener('vigil-load', () => setError(undefined));
    const renew = () =>
      mintEmbedToken(props.dashboard.id, viewTokenSeconds).then(
        (minted) => embedded.setAttribute('token', minted.token),
        () => setError('A token to show this dashboard could not be made. Reload the page and try again.'),
      );
    void renew().then(() => container.current?.append(embedded));
    const timer = setInterval(renew, renewEveryMs);
    return () => {
      clearInterval(timer);
      window.removeEventListener('vigil:theme', themed);
      embedded.remove();
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
        <ScrollRegion key={widget.id} label={widget.title}>
        <table>
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
        </ScrollRegion>
      ))}
    </div>
  );
}

function snippetFor(dashboardId: string, token: string): string {
  return `<script src="${window.location.origin}/embed/sdk.js" async></script>\n<vigil-dashboard token="${token}" dashboard="${dashboardId}"></vigil-dashboard>`;
}

/** The two tags a customer's page needs, with a one-hour token minted now. */
export function EmbedPanel(props: { dashboard: Dashboard }) {
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
