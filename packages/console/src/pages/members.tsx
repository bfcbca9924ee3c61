import { useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Field, ListTable, Page, ShownOnce, useAction, useLoad, when } from '../ui';
import { type User, userRoles as roles } from '../generated/api';

export function Members(props: { session: Session }) {
  const isAdmin = props.session.user.role === 'admin';
  const users = useLoad(() => api<List<User>>('GET', 'users?limit=100'));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<User['role']>('member');
  const [inviteUrl, setInviteUrl] = useState<string | undefined>(undefined);
  const { error, busy, run } = useAction();
  const act = (work: () => Promise<unknown>) => void run(async () => {
    await work();
    users.reload();
  });
  const invite = (event: Event) => {
    event.preventDefault();
    act(async () => {
      const answer = await api<{ data: { inviteUrl: string } }>('POST', 'users', { email, role });
      setInviteUrl(answer.data.inviteUrl);
      setEmail('');
    });
  };
  return (
    <Page title="Members" intro="Admins manage keys, webhooks, members and connections; members work with alerts, projects, datasets, chat and dashboards; viewers read.">
      {isAdmin && (
        <form class="row" onSubmit={invite}>
          <Field label="Email">
            <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </Field>
          <Field label="Role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as User['role'])}>
              {roles.map((option) => (
                <option key={option}>{option}</option>
              ))}
            </select>
          </Field>
          <button type="submit" disabled={busy}>
            Invite
          </button>
        </form>
      )}
      {inviteUrl && <ShownOnce label="Send this invitation link to the person (valid 7 days, works once)." value={inviteUrl} onDone={() => setInviteUrl(undefined)} />}
      <ListTable
        rows={users.value?.data}
        error={error ?? users.error}
        empty="Nobody yet. Invite a teammate with their email above."
        caption={`People in ${props.session.organization.name}`}
        columns={['Email', 'Role', 'Status', 'Since']}
        withActions={isAdmin}
        cells={(user) => (
          <>
            <td>{user.email}</td>
            <td>
              {isAdmin ? (
                <select aria-label={`Role of ${user.email}`} value={user.role} onChange={(e) => act(() => api('PATCH', `users/${user.id}`, { role: e.currentTarget.value }))}>
                  {roles.map((option) => (
                    <option key={option}>{option}</option>
                  ))}
                </select>
              ) : (
                user.role
              )}
            </td>
            <td>{user.status}</td>
            <td>{when(user.createdAt)}</td>
            {isAdmin && (
              <td>
                {user.status === 'deactivated' ? (
                  <button type="button" class="secondary" onClick={() => act(() => api('POST', `users/${user.id}/activate`))}>
                    Activate {user.email}
                  </button>
                ) : (
                  <button type="button" class="danger" onClick={() => act(() => api('POST', `users/${user.id}/deactivate`))}>
                    Deactivate {user.email}
                  </button>
                )}
              </td>
            )}
          </>
        )}
      />
    </Page>
  );
}
