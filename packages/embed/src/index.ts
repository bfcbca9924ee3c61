import { VigilDashboard } from './vigil-dashboard.js';

export { VigilDashboard };
export type { VigilErrorDetail, VigilLoadDetail } from './vigil-dashboard.js';

// Loading the script twice (or next to the console's own copy) must not throw.
if (!customElements.get('vigil-dashboard')) customElements.define('vigil-dashboard', VigilDashboard);
