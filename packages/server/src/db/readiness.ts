import type { Db } from './connect.js';

/** A readiness probe answers within this, whatever the database does (docs/operations.md). */
export const readinessTimeoutMs = 2_000;

/** Whether `SELECT 1` succeeds within readinessTimeoutMs: a frozen server counts as not ready. */
export async function databaseAnswers(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), readinessTimeoutMs);
  });
  const answered = db.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, tooSlow]);
  } finally {
    clearTimeout(timer);
  }
}
