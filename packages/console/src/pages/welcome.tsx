import { useState } from 'preact/hooks';
import { api, type Session } from '../api';
import { ErrorNote, Field, Loading, useAction, useLoad } from '../ui';
import { type LinkDetails, passwordLength } from '../generated/api';

const tokenOfLink = (): string => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';

/** Where an invitation (or reset) link lands: set a password, and you are signed in. */
export function Welcome(props: { onSignedIn: (session: Session) => void }) {
  const [token] = useState(tokenOfLink);
  const link = useLoad(() => api<{ data: LinkDetails }>('POST', 'session/link', { token }));
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const { error, busy, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const opened = await api<{ data: Session }>('POST', 'session/link/accept', { token, password });
      props.onSignedIn(opened.data);
    });
  };
  const mismatch = password !== repeated && repeated.length >= password.length;
  return (
    <main class="narrow">
      <h1>Welcome to Vigil</h1>
      {link.error && <ErrorNote error={link.error} />}
      {!link.value && !link.error && <Loading />}
      {link.value && (
        <form onSubmit={submit}>
          <p>
            Set a password for <strong>{link.value.data.email}</strong> in {link.value.data.orgName}.
          </p>
          <Field label={`New password (at least ${passwordLength.min} characters)`}>
            <input type="password" autocomplete="new-password" minLength={passwordLength.min} maxLength={passwordLength.max} required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </Field>
          <Field label="Repeat the password">
            <input type="password" autocomplete="new-password" required value={repeated} onInput={(e) => setRepeated(e.currentTarget.value)} />
          </Field>
          {mismatch && <p class="error">The two passwords differ.</p>}
          <ErrorNote error={error && !mismatch ? error : undefined} />
          <button type="submit" disabled={busy || password !== repeated}>
            Set password and sign in
          </button>
        </form>
      )}
    </main>
  );
}
