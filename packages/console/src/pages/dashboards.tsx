import { Page } from '../ui';

/**
 * The dashboards page's slot: dashboards and their embed component come with the dashboards
 * issue (GET /api/v1/dashboards, <vigil-dashboard>); this page lists and shows them once that lands.
 */
export function Dashboards() {
  return (
    <Page title="Dashboards" intro="Charts of your alerts and datasets, shareable by embedding.">
      <p class="empty">Dashboards are not part of this version of Vigil yet. Meanwhile, the AI chat answers questions about your data, and Usage charts your activity.</p>
    </Page>
  );
}
