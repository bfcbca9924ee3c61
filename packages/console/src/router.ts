import { useEffect, useState } from 'preact/hooks';

/**
 * Path-based pages with the History API; the server answers every console path with index.html.
 * `to` may carry a query string (the alert list keeps its filters there, so a link shares them).
 */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (window.location.pathname + window.location.search === to) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

function useLocationPart(read: () => string): string {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return value;
}

export const usePath = (): string => useLocationPart(() => window.location.pathname);
export const useSearch = (): string => useLocationPart(() => window.location.search);

/** A same-page link: the browser's own link (new tab, copy address) and History API navigation on a plain click. */
export function followLink(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
