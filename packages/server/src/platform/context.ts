import type { Db } from '../db/connect.js';
import type { Clock } from './clock.js';

/** What every service is built from: the database and the time. */
export interface ServiceContext {
  db: Db;
  clock: Clock;
}
