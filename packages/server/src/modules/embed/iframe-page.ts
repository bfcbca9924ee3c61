import type { Theme } from './schema.js';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character);

/** The iframe page: the same <vigil-dashboard> component a host page would use, filling the frame. */
export function iframePage(input: { dashboardId: string; token: string; theme: Theme; sdkVersion: string }): string {
  const background = input.theme === 'dark' ? '#111827' : '#ffffff';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard</title>
<style>html, body { margin: 0; min-height: 100%; background: ${background}; }</style>
<script src="/embed/sdk.js?v=${escapeHtml(input.sdkVersion)}" defer></script>
</head>
<body>
<vigil-dashboard dashboard="${escapeHtml(input.dashboardId)}" token="${escapeHtml(input.token)}" theme="${input.theme}"></vigil-dashboard>
</body>
</html>
`;
}
