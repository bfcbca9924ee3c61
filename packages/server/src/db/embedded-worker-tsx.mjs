// The embedded database's thread when Vigil runs from its TypeScript sources (npm start, the CLI,
// the tests): a worker thread inherits no loader on Node 20, so tsx is registered here first.
import { register } from 'tsx/esm/api';

register();
await import('./embedded-worker.ts');
