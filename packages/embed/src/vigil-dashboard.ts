import type { Chart } from 'chart.js';
import { EmbedError, type EmbeddedDashboard, fetchDashboard } from './api.js';
import type { ChartColors } from './charts.js';
import { renderDashboard, renderState } from './render.js';
import { styles } from './styles.js';

/** Where the script was loaded from: the Vigil server the component talks to unless `base-url` says otherwise. */
const scriptOrigin = document.currentScript instanceof HTMLScriptElement && document.currentScript.src ? new URL(document.currentScript.src).origin : location.origin;

const defaultRefreshSeconds = 60;
const minRefreshSeconds = 5;

export interface VigilLoadDetail {
  dashboardId: string;
  refreshedAt: string;
  widgets: number;
}

export interface VigilErrorDetail {
  code: string;
  message: string;
  status: number | null;
}

/**
 * `<vigil-dashboard token="…" dashboard="dash_…" theme="light|dark" refresh="60">`: one dashboard,
 * read with an embed token, re-read every `refresh` seconds (0: never) and whenever an attribute
 * changes. Fires `vigil-load` after each successful read and `vigil-error` after each failed one.
 */
export class VigilDashboard extends HTMLElement {
  static readonly observedAttributes = ['token', 'dashboard', 'theme', 'refresh', 'base-url'];

  private readonly root: HTMLElement;
  private charts: Chart[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: AbortController | undefined;
  private shown: EmbeddedDashboard | undefined;

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    this.root = document.createElement('div');
    this.root.className = 'root';
    shadow.append(this.root);
    // A constructed style sheet, not a <style> element: pages whose Content-Security-Policy forbids
    // inline styles (Vigil's own console among them) can host the component.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(styles);
    shadow.adoptedStyleSheets = [sheet];
  }

  connectedCallback(): void {
    this.applyTheme();
    void this.refresh();
  }

  disconnectedCallback(): void {
    clearTimeout(this.timer);
    this.inFlight?.abort();
    this.destroyCharts();
  }

  attributeChangedCallback(name: string, previous: string | null, current: string | null): void {
    if (!this.isConnected || previous === current) return;
    if (name === 'theme') {
      this.applyTheme();
      if (this.shown) this.show(this.shown);
      return;
    }
    if (name === 'token' || name === 'dashboard') this.shown = undefined;
    void this.refresh();
  }

  /** Reads the dashboard now (and schedules the next read). */
  async refresh(): Promise<void> {
    clearTimeout(this.timer);
    this.inFlight?.abort();
    const controller = new AbortController();
    this.inFlight = controller;
    const token = this.getAttribute('token');
    const dashboardId = this.getAttribute('dashboard');
    try {
      if (!token || !dashboardId) throw new EmbedError('MISSING_ATTRIBUTE', 'Set the token and dashboard attributes.', null);
      if (!this.shown) this.showState({ loading: true });
      const dashboard = await fetchDashboard(this.getAttribute('base-url') ?? scriptOrigin, dashboardId, token, controller.signal);
      if (controller.signal.aborted) return;
      this.show(dashboard);
      this.emit<VigilLoadDetail>('vigil-load', { dashboardId: dashboard.id, refreshedAt: dashboard.refreshedAt, widgets: dashboard.widgets.length });
    } catch (error) {
      if (controller.signal.aborted) return;
      const failure = error instanceof EmbedError ? error : new EmbedError('ERROR', 'The dashboard could not be shown.', null);
      // A failed token or dashboard clears what was shown: nothing stays on screen that the token may no longer read.
      this.shown = undefined;
      this.showState({ loading: false, message: failure.message });
      this.emit<VigilErrorDetail>('vigil-error', { code: failure.code, message: failure.message, status: failure.status });
    }
    this.schedule();
  }

  private schedule(): void {
    const seconds = Number(this.getAttribute('refresh') ?? defaultRefreshSeconds);
    if (!Number.isFinite(seconds) || seconds <= 0 || !this.isConnected) return;
    this.timer = setTimeout(() => void this.refresh(), Math.max(seconds, minRefreshSeconds) * 1000);
  }

  private applyTheme(): void {
    this.root.classList.toggle('dark', this.getAttribute('theme') === 'dark');
  }

  private colors(): ChartColors {
    const style = getComputedStyle(this.root);
    const read = (name: string) => style.getPropertyValue(name).trim();
    return { text: read('--vigil-fg'), grid: read('--vigil-grid'), series: read('--vigil-series').split(/\s+/) };
  }

  private show(dashboard: EmbeddedDashboard): void {
    this.shown = dashboard;
    this.destroyCharts();
    this.charts = renderDashboard(this.root, dashboard, this.colors());
  }

  private showState(state: Parameters<typeof renderState>[1]): void {
    this.destroyCharts();
    renderState(this.root, state);
  }

  private destroyCharts(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }

  private emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
  }
}
