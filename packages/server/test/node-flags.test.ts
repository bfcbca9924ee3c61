import { describe, expect, it } from 'vitest';
import { dockerfileStart, documentedStarts, servingNodeArguments, startServerProcess, tempDataDir } from './support/processes.js';

/**
 * V8's memory reducer, once a server goes quiet, runs a full collection that throws away the
 * optimized code of the request path; the first seconds after a lull then ran 3–4 times slower
 * (docs/operations.md, "Node's flags"; BENCHMARKS.md, 2026-12-02 afternoon). A flag on node's own
 * command line is the only way to turn it off, so each documented start must carry it.
 */
const starts = { "the Dockerfile's CMD": dockerfileStart, 'npm start': documentedStarts['npm start'] };

describe.each(Object.keys(starts) as (keyof typeof starts)[])('the server process `%s` starts', (way) => {
  it("runs node without V8's memory reducer", async () => {
    const data = await tempDataDir({ migrated: true });
    const server = await startServerProcess({ VIGIL_DATA_DIR: data.dir }, starts[way]);
    try {
      const argv = servingNodeArguments(server);
      expect(argv.slice(-2)).toEqual([expect.stringMatching(/packages\/server\/bin\/vigil\.js$/), 'serve']);
      expect(argv).toContain('--no-memory-reducer');
    } finally {
      await server.stop();
      await data.remove();
    }
  }, 120_000);
});
