import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Delivery, DeliveryAttempt, DeliveryStatus, List, Session, Webhook } from '../api-types';
import { Choice, Empty, ErrorNote, Field, Loading, optionsOf, Page, ShownOnce, useAction, useLoad, when } from '../ui';

/** The event names, read from the API's own schema for POST /webhooks (one list, kept by the server). */
async function eventNames(): Promise<string[]> {
  const document = await fetch('/api/v1/openapi.json').then((response) => response.json());
  const schema = document.paths['/api/v1/webhooks'].post.requestBody.content['application/json'].schema;
  return schema.properties.events.items.enum as string[];
}

const deliveryStatuses: DeliveryStatus[] = ['pending', 'delivered', 'failed'];

function Attempt(props: { attempt: DeliveryAttempt; body: string }) {
  const { attempt } = props;
  const headers = attempt.requestHeaders;
  return (
    <li class="attempt" data-attempt={attempt.number}>
      <p>
        <strong>
          Attempt {attempt.number} ({attempt.trigger})
        </strong>{' '}
        · {when(attempt.startedAt)} · <span class={attempt.httpStatus && attempt.httpStatus < 300 ? 'status delivered' : 'status failed'}>{attempt.httpStatus ?? attempt.error}</span> · {attempt.durationMs} ms
        {attempt.errorDetail && <span class="type"> · {attempt.errorDetail}</span>}
      </p>
      <details>
        <summary>Request and response of attempt {attempt.number}</summary>
        <h4>Request headers</h4>
        {headers ? (
          <pre tabIndex={0} data-part="request-headers">{Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>
        ) : (
          <p class="type">Not recorded for this attempt.</p>
        )}
        <h4>Request body (JSON, formatted for reading)</h4>
        <pre tabIndex={0} data-part="request-body">{props.body}</pre>
        <h4>Response body (first 4 KiB)</h4>
        <pre tabIndex={0} data-part="response-body">{attempt.responseBody ?? (attempt.error ? `No response: ${attempt.error}` : '(empty)')}</pre>
      </details>
    </li>
  );
}

function Deliveries(props: { webhook: Webhook; canManage: boolean }) {
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  const query = new URLSearchParams(Object.entries({ limit: '50', status, event }).filter(([, value]) => value)).toString();
  const deliveries = useLoad(() => api<List<Delivery>>('GET', `webhooks/${props.webhook.id}/deliveries?${query}`), [props.webhook.id, query]);
  const { error, run } = useAction();
  const retry = (delivery: Delivery) =>
    void run(async () => {
      await api('POST', `webhooks/${props.webhook.id}/deliveries/${delivery.id}/retry`, {});
      deliveries.reload();
    });
  return (
    <div class="deliveries">
      <h3>Delivery history of {props.webhook.name}</h3>
      <div class="row" role="search" aria-label={`Filter deliveries of ${props.webhook.name}`}>
        <Choice label="Delivery status" value={status} options={optionsOf(deliveryStatuses)} none="All" onChange={setStatus} />
        <Choice label="Event" value={event} options={optionsOf(props.webhook.events)} none="All" onChange={setEvent} />
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={error ?? deliveries.error} />
      {deliveries.value && deliveries.value.data.length === 0 && <Empty>No deliveries match. They appear here when one of the subscribed events happens.</Empty>}
      {deliveries.value?.data.map((delivery) => (
        <article key={delivery.id} class="delivery" aria-label={`Delivery ${delivery.id}`}>
          <p>
            <strong>{delivery.event}</strong> · <span class={`status ${delivery.status}`}>{delivery.status}</span> · {when(delivery.createdAt)}
            {delivery.nextAttemptAt && <> · next attempt {when(delivery.nextAttemptAt)}</>} · <code>{delivery.id}</code>
          </p>
          {props.canManage && (
            <button type="button" class="secondary" onClick={() => retry(delivery)}>
              Resend now
            </button>
          )}
          <ol class="attempts">
            {delivery.attempts.map((attempt) => (
              <Attempt key={attempt.number} attempt={attempt} body={JSON.stringify(delivery.payload, null, 2)} />
            ))}
          </ol>
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
