import { useState } from 'preact/hooks';
import { api, type Session } from '../api';
import { ErrorNote, Field, useAction } from '../ui';

export function SignIn(props: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => props.onSignedIn((await api<{ data: Session }>('POST', 'session', { email, password })).data));
  };
  return (
    <main class="narrow">
      <h1>Sign in to Vigil</h1>
      <form onSubmit={submit}>
        <Field label="Email">
          <input type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Password">
          <input type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="intro">New here? Open the invitation link an admin sent you. Forgot your password? An operator runs <code>vigil user reset-link EMAIL</code>.</p>
    </main>
  );
}
