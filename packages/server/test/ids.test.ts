import { describe, expect, it } from 'vitest';
import { hasPrefix, newId } from '../src/platform/ids.js';

// Ids are monotonic within a process: a time earlier than one already used continues from the
// latest id. These times are ahead of any id another test file of this process has made.
const hoursAhead = (hours: number) => Date.now() + hours * 3_600_000;

describe('ids', () => {
  it('are prefixed, sort by creation time, and stay in order within one millisecond', () => {
    const at = hoursAhead(1);
    const sameMillisecond = Array.from({ length: 50 }, () => newId('request', at));
    const later = newId('request', at + 1);
    expect(sameMillisecond.every((id) => hasPrefix('request', id))).toBe(true);
    expect([...sameMillisecond].sort()).toEqual(sameMillisecond);
    expect(new Set(sameMillisecond).size).toBe(50);
    expect(later > sameMillisecond[49]).toBe(true);
  });

  it('draw a fresh random part for every new millisecond, well spread over the alphabet', () => {
    const start = hoursAhead(2);
    const randomParts = Array.from({ length: 2000 }, (_, index) => newId('alert', start + 10 + index).slice(-16));
    expect(new Set(randomParts).size).toBe(2000);
    const firstCharacters = new Set(randomParts.map((part) => part[0]));
    expect(firstCharacters.size).toBe(32);
  });
});
