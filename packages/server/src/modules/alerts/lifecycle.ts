import type { AlertStatus } from './schema.js';

export type AlertMove = 'acknowledge' | 'assign' | 'resolve';

/** The states each move may start from: active → acknowledged → resolved, assignable until resolved. */
const allowedFrom: Record<AlertMove, readonly AlertStatus[]> = {
  acknowledge: ['active'],
  assign: ['active', 'acknowledged'],
  resolve: ['active', 'acknowledged'],
};

export function canMove(move: AlertMove, from: AlertStatus): boolean {
  return allowedFrom[move].includes(from);
}
