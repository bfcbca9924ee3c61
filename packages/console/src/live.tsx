import { useEffect, useRef, useState } from 'preact/hooks';
import type { AlertChange } from './api-types';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

/** After the server refused the stream outright (EventSource then stops), try again this much later. */
const retryClosedAfterMs = 3000;

/**
 * The organization's alert changes as they are committed (GET /api/v1/alerts/stream, server-sent
 * events with the session cookie). EventSource reconnects by itself. Each time the stream opens,
 * the first time included, `onOpened` runs so the page reads again what it may have missed: a
 * change committed after the page's first read and before the stream was open is sent to no one.
 */
export function useAlertStream(projectId: string | undefined, onChange: (change: AlertChange) => void, onOpened: () => void): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const handlers = useRef({ onChange, onOpened });
  handlers.current = { onChange, onOpened };
  useEffect(() => {
    let source: EventSource | undefined;
    let retry: number | undefined;
    const connect = () => {
      source = new EventSource(`/api/v1/alerts/stream${projectId ? `?projectId=${encodeURIComponent(projectId)}` : ''}`);
      source.onopen = () => {
        setState('live');
        handlers.current.onOpened();
      };
      source.onerror = () => {
        setState('reconnecting');
        if (source?.readyState === EventSource.CLOSED) retry = window.setTimeout(connect, retryClosedAfterMs);
      };
      source.addEventListener('alert', (message) => handlers.current.onChange(JSON.parse((message as MessageEvent<string>).data) as AlertChange));
    };
    connect();
    return () => {
      window.clearTimeout(retry);
      source?.close();
    };
  }, [projectId]);
  return state;
}

const labels: Record<LiveState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

export function LiveBadge(props: { state: LiveState }) {
  return (
    <span class={`live ${props.state}`} role="status" data-testid="live">
      <span class="dot" aria-hidden="true" />
      {labels[props.state]}
    </span>
  );
}
