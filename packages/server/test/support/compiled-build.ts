import { buildServer } from '../../launch/build.js';

/**
 * Vitest's global setup: the servers and CLI commands the tests start run the compiled build, as
 * users' do after `npm ci`, so it must be of the sources as they are (a no-op when it is).
 */
export default async function buildCompiledServer(): Promise<void> {
  await buildServer();
}
