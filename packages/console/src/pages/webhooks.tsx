import { useState } from 'preact/hooks';
import { api, type List, type Session } from '../api';
import { Empty, ErrorNote, Field, Loading, Page, ShownOnce, useAction, useLoad, when } from '../ui';
import { type Delivery, type Webhook } from '../generated/api';

/** The event names, read from the API's own schema for POST /webhooks (one list, kept by the server). */
async function eventNames(): Promise<string[]> {
  const document = await fetch('/api/v1/openapi.json').then((response) => response.json());
  const schema = document.paths['/api/v1/webhooks'].post.requestBody.content['application/json'].schema;
  return schema.properties.events.items.enum as string[];
}

function Deliveries(props: { webhook: Webhook; canManage: boolean }) {
  const deliveries = useLoad(() => api<List<Delivery>>('GET', `webhooks/${props.webhook.id}/deliveries?limit=50`), [props.webhook.id]);
  const { error, run } = useAction();
  const retry = (delivery: Delivery) =>
    void run(async () => {
      await api('POST', `webhooks/${props.webhook.id}/deliveries/${delivery.id}/retry`, {});
      deliveries.reload();
    });
  return (
    <div class="deliveries">
      <h3>Delivery history of {props.webhook.name}</h3>
      <button type="button" class="secondary" onClick={deliveries.reload}>
        Refresh
      </button>
      <ErrorNote error={error ?? deliveries.error} />
      {deliveries.value && deliveries.value.data.length === 0 && <Empty>No deliveries yet. They appear here when one of the subscribed events happens.</Empty>}
      {deliveries.value?.data.map((delivery) => (
        <article key={delivery.id} class="delivery" aria-label={`Delivery ${delivery.id}`}>
          <p>
            <strong>{delivery.event}</strong> · <span class={`status ${delivery.status}`}>{delivery.status}</span> · {when(delivery.createdAt)}
            {delivery.nextAttemptAt && <> · next attempt {when(delivery.nextAttemptAt)}</>}
            {props.canManage && (
              <button type="button" class="secondary" onClick={() => retry(delivery)}>
                Retry now
              </button>
            )}
          </p>
          <table>
            <caption class="visually-hidden">Attempts of {delivery.id}</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">When</th>
                <th scope="col">Result</th>
                <th scope="col">Duration</th>
                <th scope="col">Response</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt) => (
                <tr key={attempt.number} class="attempt">
                  <td>
                    {attempt.number} ({attempt.trigger})
                  </td>
                  <td>{when(attempt.startedAt)}</td>
                  <td>
                    {attempt.httpStatus ?? attempt.error}
                    {attempt.errorDetail && <div class="type">{attempt.errorDetail}</div>}
                  </td>
                  <td>{attempt.durationMs} ms</td>
                  <td>
                    <code>{(attempt.responseBody ?? '').slice(0, 120)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </article>
      ))}
    </div>
  );
}

export function Webhooks(props: { session: Session }) {
  const canManage = props.session.user.role === 'admin';
  const webhooks = useLoad(() => api<List<Webhook>>('GET', 'webhooks?limit=100'));
  const events = useLoad(eventNames);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const { error, busy, run } = useAction();
  const act = (work: () => Promise<unknown>) =>
    void run(async () => {
      await work();
      webhooks.reload();
    });
  const create = (event: Event) => {
    event.preventDefault();
    act(async () => {
      const answer = await api<{ data: { secret: string } }>('POST', 'webhooks', { name, url, events: chosen });
      setSecret(answer.data.secret);
      setName('');
      setUrl('');
      setChosen([]);
    });
  };
  const rotate = (webhook: Webhook) =>
    act(async () => setSecret((await api<{ data: { secret: string } }>('POST', `webhooks/${webhook.id}/rotate-secret`, {})).data.secret));
  const recover = (webhook: Webhook) =>
    act(() => api('POST', `webhooks/${webhook.id}/recover`, { since: new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString() }));
  return (
    <Page title="Webhooks" intro="Vigil POSTs each subscribed event to your https endpoint, signed with the webhook's secret, and retries failures for 51 minutes. An http:// or private address (a receiver on your own machine or network) is accepted only when the server runs with VIGIL_WEBHOOK_ALLOW_PRIVATE=true, for development.">
      {canManage && (
        <form onSubmit={create}>
          <div class="row">
            <Field label="Name">
              <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <Field label="Endpoint URL">
              <input type="url" required value={url} placeholder="https://example.com/vigil" onInput={(e) => setUrl(e.currentTarget.value)} />
            </Field>
          </div>
          <fieldset>
            <legend>Events</legend>
            <div class="events">
              {events.value?.map((event) => (
                <label key={event} class="check">
                  <input
                    type="checkbox"
                    checked={chosen.includes(event)}
                    onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, event] : chosen.filter((one) => one !== event))}
                  />
                  {event}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" disabled={busy || chosen.length === 0}>
            Create webhook
          </button>
        </form>
      )}
      {secret && <ShownOnce label="The signing secret." value={secret} onDone={() => setSecret(undefined)} />}
      <ErrorNote error={error ?? webhooks.error ?? events.error} />
      {!webhooks.value && !webhooks.error && <Loading />}
      {webhooks.value && webhooks.value.data.length === 0 && (
        <Empty>{canManage ? 'No webhooks yet. Add your endpoint above and choose the events it should receive.' : 'No webhooks yet. An admin can add one.'}</Empty>
      )}
      {webhooks.value?.data.map((webhook) => (
        <article key={webhook.id} class="card" aria-label={`Webhook ${webhook.name}`}>
          <h2>{webhook.name}</h2>
          <p>
            <code>{webhook.url}</code> · {webhook.isActive ? 'enabled' : `disabled${webhook.disabledReason ? ` (${webhook.disabledReason})` : ''}`}
          </p>
          <p class="intro">{webhook.events.join(', ')}</p>
          <div class="row">
            <button type="button" class="secondary" aria-expanded={open === webhook.id} onClick={() => setOpen(open === webhook.id ? undefined : webhook.id)}>
              Deliveries
            </button>
            {canManage && (
              <>
                <button type="button" class="secondary" onClick={() => act(() => api('PATCH', `webhooks/${webhook.id}`, { isActive: !webhook.isActive }))}>
                  {webhook.isActive ? 'Disable' : 'Enable'}
                </button>
                <button type="button" class="secondary" onClick={() => rotate(webhook)}>
                  Rotate secret
                </button>
                <button type="button" class="secondary" onClick={() => recover(webhook)}>
                  Resend failures of the last 24 h
                </button>
                <button type="button" class="danger" onClick={() => window.confirm(`Delete ${webhook.name}?`) && act(() => api('DELETE', `webhooks/${webhook.id}`))}>
                  Delete
                </button>
              </>
            )}
          </div>
          {open === webhook.id && <Deliveries webhook={webhook} canManage={canManage} />}
        </article>
      ))}
    </Page>
  );
}
