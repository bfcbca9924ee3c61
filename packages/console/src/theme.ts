import { useState } from 'preact/hooks';

export type Theme = 'light' | 'dark';
const storageKey = 'vigil-theme';

const systemTheme = (): Theme => (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

function chosenTheme(): Theme | undefined {
  try {
    const stored = window.localStorage.getItem(storageKey);
    return stored === 'light' || stored === 'dark' ? stored : undefined;
  } catch {
    return undefined; // storage refused (private mode): follow the system
  }
}

/** The page's theme: a choice remembered in this browser, else the system's (prefers-color-scheme). */
export const currentTheme = (): Theme => chosenTheme() ?? systemTheme();

/** Applies the remembered choice before the first render, so a dark page never flashes light. */
export function applyTheme(): void {
  const chosen = chosenTheme();
  if (chosen) document.documentElement.dataset.theme = chosen;
  else delete document.documentElement.dataset.theme;
}

export function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(currentTheme);
  const toggle = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    try {
      window.localStorage.setItem(storageKey, next);
    } catch {
      // not remembered, but applied for this page
    }
    document.documentElement.dataset.theme = next;
    setTheme(next);
    window.dispatchEvent(new CustomEvent('vigil:theme', { detail: next }));
  };
  return [theme, toggle];
}
