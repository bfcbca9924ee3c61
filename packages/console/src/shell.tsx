import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { Role, Session } from './api-types';
import { followLink } from './router';
import { useTheme } from './theme';
import logoUrl from './logo.svg';
import { AlertPage } from './pages/alert';
import { Alerts } from './pages/alerts';
import { ApiKeys } from './pages/api-keys';
import { Chat } from './pages/chat';
import { Connections } from './pages/connections';
import { DashboardBuilder } from './pages/dashboard-builder';
import { Dashboards } from './pages/dashboards';
import { Datasets } from './pages/datasets';
import { Exports } from './pages/exports';
import { Members } from './pages/members';
import { Projects } from './pages/projects';
import { Usage } from './pages/usage';
import { Webhooks } from './pages/webhooks';

type PageProps = { session: Session; id: string };

interface Entry {
  path: string;
  label: string;
  page: (props: PageProps) => JSX.Element;
  /** The page of one item, at `${path}/{id}`. */
  item?: (props: PageProps) => JSX.Element;
  /** Shown only to these roles (the server enforces the same rule on every call). */
  roles?: Role[];
}

const entries: Entry[] = [
  { path: '/alerts', label: 'Alerts', page: Alerts, item: AlertPage },
  { path: '/projects', label: 'Projects', page: Projects },
  { path: '/datasets', label: 'Datasets', page: Datasets },
  { path: '/chat', label: 'AI chat', page: Chat },
  { path: '/dashboards', label: 'Dashboards', page: Dashboards, item: DashboardBuilder },
  { path: '/connections', label: 'Connections', page: Connections },
  { path: '/exports', label: 'Exports', page: Exports },
  { path: '/usage', label: 'Usage', page: Usage },
  { path: '/members', label: 'Members', page: Members },
  { path: '/webhooks', label: 'Webhooks', page: Webhooks },
  { path: '/developers/api-keys', label: 'Developers → API keys', page: ApiKeys, roles: ['admin'] },
];

function NotAllowed() {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Not available to your role</h1>
      <p>Only admins can open this page. Ask an admin of your organization if you need it.</p>
    </section>
  );
}

/** The entry a path belongs to, and the item id when it is an item's page (`/alerts/alrt_…`). */
function route(path: string): { entry: Entry; id: string } {
  for (const entry of entries) {
    if (path === entry.path) return { entry, id: '' };
    if (entry.item && path.startsWith(`${entry.path}/`)) return { entry, id: decodeURIComponent(path.slice(entry.path.length + 1)) };
  }
  return { entry: entries[0], id: '' };
}

export function Shell(props: { session: Session; path: string; onSignedOut: () => void }) {
  const { session } = props;
  const [menuOpen, setMenuOpen] = useState(false);
  const [theme, toggleTheme] = useTheme();
  const visible = entries.filter((entry) => !entry.roles || entry.roles.includes(session.user.role));
  const { entry: current, id } = route(props.path);
  const allowed = !current.roles || current.roles.includes(session.user.role);
  const Current = id && current.item ? current.item : current.page;
  const signOut = () => api('DELETE', 'session').finally(props.onSignedOut);
  useEffect(() => setMenuOpen(false), [props.path]);
  return (
    <div class="shell">
      <header>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="console-nav" onClick={() => setMenuOpen(!menuOpen)}>
          <span aria-hidden="true">☰</span> Menu
        </button>
        <a class="brand" href="/alerts" onClick={(event) => followLink(event, '/alerts')}>
          <img src={logoUrl} alt="" width="24" height="24" />
          Vigil
        </a>
        <span class="who">
          {session.organization.name} · {session.user.email} ({session.user.role})
        </span>
        <button type="button" class="header-button" aria-pressed={theme === 'dark'} onClick={toggleTheme}>
          Dark mode
        </button>
        <button type="button" class="header-button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav id="console-nav" aria-label="Console" class={menuOpen ? 'open' : undefined}>
        <ul>
          {visible.map((entry) => (
            <li key={entry.path}>
              <a href={entry.path} aria-current={entry === current ? 'page' : undefined} onClick={(event) => followLink(event, entry.path)}>
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>{allowed ? <Current session={session} id={id} /> : <NotAllowed />}</main>
    </div>
  );
}
