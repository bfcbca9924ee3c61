import { useState } from 'preact/hooks';
import { api, type List } from '../api';
import { Field, ListTable, Page, ShownOnce, useAction, useLoad, when } from '../ui';
import { type ApiKey } from '../generated/api';

export function ApiKeys() {
  const keys = useLoad(() => api<List<ApiKey>>('GET', 'api-keys?limit=100'));
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | undefined>(undefined);
  const { error, busy, run } = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answer = await api<{ data: { apiKey: string } }>('POST', 'api-keys', { name });
      setCreated(answer.data.apiKey);
      setName('');
      keys.reload();
    });
  };
  const revoke = (key: ApiKey) => {
    if (!window.confirm(`Revoke "${key.name}"? Programs using it stop working at once.`)) return;
    void run(async () => {
      await api('DELETE', `api-keys/${key.id}`);
      keys.reload();
    });
  };
  const live = keys.value?.data.filter((key) => !key.revokedAt) ?? [];
  return (
    <Page title="API keys" intro="Programs call the REST API at /api/v1 with a key: Authorization: Bearer svc_live_…. A key acts as the whole organization.">
      <form class="row" onSubmit={create}>
        <Field label="Key name">
          <input required maxLength={100} value={name} placeholder="Deploy bot" onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </form>
      {created && <ShownOnce label="Your new API key." value={created} onDone={() => setCreated(undefined)} />}
      <ListTable
        rows={keys.value && live}
        error={error ?? keys.error}
        empty="No active keys. Create one above to call the API from your code."
        caption="Active keys"
        columns={['Name', 'Key', 'Created', 'Last used']}
        withActions
        cells={(key) => (
          <>
            <td>{key.name}</td>
            <td>
              <code>{key.prefix}</code>
            </td>
            <td>{when(key.createdAt)}</td>
            <td>{key.lastUsedAt ? when(key.lastUsedAt) : 'Never'}</td>
            <td>
              <button type="button" class="danger" onClick={() => revoke(key)}>
                Revoke {key.name}
              </button>
            </td>
          </>
        )}
      />
    </Page>
  );
}
