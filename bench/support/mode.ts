/**
 * How a part runs: measured in full, or `--smoke`: one short round of every step, so that CI learns
 * when a part crashes or its correctness check fails. A smoke run's figures mean nothing and no
 * timing ever fails it.
 */
export interface BenchMode {
  smoke: boolean;
}

export const fullRun: BenchMode = { smoke: false };

/** Picks the full figure or the smoke one. */
export const sized = <T>(mode: BenchMode, full: T, smoke: T): T => (mode.smoke ? smoke : full);
