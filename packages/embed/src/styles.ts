/**
 * Everything lives inside the shadow root; `.root` sets every inherited property itself, so
 * nothing the host page sets on <vigil-dashboard> (font, colour, line height) seeps in. The
 * custom properties are the theme, and the one hook a host may use on purpose.
 */
export const styles = `
:host { display: block; contain: content; }
:host([hidden]) { display: none; }
.root {
  all: initial;
  display: block;
  box-sizing: border-box;
  --vigil-bg: #ffffff; --vigil-fg: #111827; --vigil-muted: #4b5563; --vigil-card: #f9fafb; --vigil-border: #d1d5db;
  --vigil-grid: #e5e7eb; --vigil-error: #b91c1c;
  --vigil-series: #2563eb #db2777 #059669 #d97706 #7c3aed #0891b2 #65a30d #dc2626;
  background: var(--vigil-bg); color: var(--vigil-fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  padding: 12px;
}
.root.dark {
  --vigil-bg: #111827; --vigil-fg: #f9fafb; --vigil-muted: #d1d5db; --vigil-card: #1f2937; --vigil-border: #4b5563;
  --vigil-grid: #374151; --vigil-error: #fca5a5;
  --vigil-series: #60a5fa #f472b6 #34d399 #fbbf24 #a78bfa #22d3ee #a3e635 #f87171;
}
*, *::before, *::after { box-sizing: border-box; }
h2 { font-size: 18px; margin: 0 0 4px; font-weight: 600; }
.description { margin: 0 0 12px; color: var(--vigil-muted); }
.grid { display: grid; gap: 12px; grid-template-columns: repeat(auto-fill, minmax(min(100%, 280px), 1fr)); }
.widget { margin: 0; padding: 12px; border: 1px solid var(--vigil-border); border-radius: 8px; background: var(--vigil-card); min-width: 0; }
.widget h3 { font-size: 14px; font-weight: 600; margin: 0 0 8px; }
.chart { position: relative; height: 220px; }
.number { font-size: 36px; font-weight: 700; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--vigil-border); }
th { font-weight: 600; }
.table-scroll { overflow: auto; max-height: 260px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
ul.alerts { list-style: none; margin: 0; padding: 0; }
ul.alerts li { display: flex; gap: 8px; align-items: baseline; padding: 4px 0; border-bottom: 1px solid var(--vigil-border); }
.severity { font-size: 11px; font-weight: 700; text-transform: uppercase; padding: 1px 6px; border-radius: 4px; color: #ffffff; }
.severity-critical { background: #b91c1c; } .severity-high { background: #c2410c; } .severity-medium { background: #a16207; }
.severity-low { background: #1d4ed8; } .severity-info { background: #4b5563; }
.alert-title { flex: 1; min-width: 0; overflow-wrap: anywhere; }
.muted { color: var(--vigil-muted); }
.state { padding: 16px; border: 1px solid var(--vigil-border); border-radius: 8px; margin: 0; }
.state.error { border-color: var(--vigil-error); color: var(--vigil-error); }
.state.error strong { display: block; margin-bottom: 4px; }
.widget-error { color: var(--vigil-error); margin: 0; }
`;
