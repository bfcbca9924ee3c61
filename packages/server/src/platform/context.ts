import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import type { Clock } from './clock.js';

/** The configuration once the secret key is known (configured, or kept in the data directory). */
export type ResolvedConfig = Config & { secretKey: string };

/** What every service is built from: the database, the time and the configuration. */
export interface ServiceContext {
  db: Db;
  clock: Clock;
  config: ResolvedConfig;
}
