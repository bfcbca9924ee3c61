import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type Session, useCsrfToken } from './api';
import { navigate, usePath } from './router';
import { Shell } from './shell';
import { SignIn } from './pages/sign-in';
import { Welcome } from './pages/welcome';
import { applyTheme } from './theme';
import './styles.css';

function App() {
  const path = usePath();
  const [session, setSession] = useState<Session | null | undefined>(undefined);

  const signedIn = (opened: Session) => {
    useCsrfToken(opened.csrfToken);
    setSession(opened);
    // replace: the page with the link's token leaves the browser's history.
    if (['/', '/sign-in', '/welcome'].includes(window.location.pathname)) navigate('/alerts', { replace: true });
  };

  useEffect(() => {
    api<{ data: Session }>('GET', 'session').then(
      (current) => signedIn(current.data),
      () => setSession(null),
    );
    const ended = () => setSession(null);
    window.addEventListener('vigil:signed-out', ended);
    return () => window.removeEventListener('vigil:signed-out', ended);
  }, []);

  if (path === '/welcome') return <Welcome onSignedIn={signedIn} />;
  if (session === undefined) return <p aria-live="polite">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  return <Shell session={session} path={path} onSignedOut={() => setSession(null)} />;
}

applyTheme();
render(<App />, document.getElementById('app')!);
