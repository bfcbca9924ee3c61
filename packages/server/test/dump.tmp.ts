import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/platform/clock.js';
import { MemoryCounterStore, RateLimiter } from '../src/platform/rate-limit.js';
import { testConfig } from './support/app.js';
const app = await buildApp({ config: testConfig(), db: {} as never, clock: systemClock, limiter: new RateLimiter(new MemoryCounterStore()) });
await app.http.ready();
writeFileSync('/tmp/oa9/openapi.json', JSON.stringify(app.http.swagger(), null, 2));
await app.http.close();
