import type { JSX } from 'preact';
import { api, type Session } from './api';
import { navigate } from './router';
import { Alerts } from './pages/alerts';
import { ApiKeys } from './pages/api-keys';
import { Chat } from './pages/chat';
import { Connections } from './pages/connections';
import { Dashboards } from './pages/dashboards';
import { Datasets } from './pages/datasets';
import { Exports } from './pages/exports';
import { Members } from './pages/members';
import { Projects } from './pages/projects';
import { Usage } from './pages/usage';
import { Webhooks } from './pages/webhooks';

type Role = Session['user']['role'];

interface Entry {
  path: string;
  label: string;
  page: (props: { session: Session }) => JSX.Element;
  /** Shown only to these roles (the server enforces the same rule on every call). */
  roles?: Role[];
}

const entries: Entry[] = [
  { path: '/alerts', label: 'Alerts', page: Alerts },
  { path: '/projects', label: 'Projects', page: Projects },
  { path: '/datasets', label: 'Datasets', page: Datasets },
  { path: '/chat', label: 'AI chat', page: Chat },
  { path: '/dashboards', label: 'Dashboards', page: Dashboards },
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

export function Shell(props: { session: Session; path: string; onSignedOut: () => void }) {
  const { session } = props;
  const visible = entries.filter((entry) => !entry.roles || entry.roles.includes(session.user.role));
  const current = entries.find((entry) => entry.path === props.path) ?? entries[0];
  const allowed = !current.roles || current.roles.includes(session.user.role);
  const Current = current.page;
  const signOut = () => api('DELETE', 'session').finally(props.onSignedOut);
  return (
    <div class="shell">
      <header>
        <a class="brand" href="/alerts" onClick={(event) => { event.preventDefault(); navigate('/alerts'); }}>
          Vigil
        </a>
        <span class="who">
          {session.organization.name} · {session.user.email} ({session.user.role})
        </span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console">
        <ul>
          {visible.map((entry) => (
            <li key={entry.path}>
              <a
                href={entry.path}
                aria-current={entry === current ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  navigate(entry.path);
                }}
              >
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>{allowed ? <Current session={session} /> : <NotAllowed />}</main>
    </div>
  );
}
