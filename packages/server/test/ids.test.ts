import { describe, expect, it } from 'vitest';
import { hasPrefix, newId } from '../src/platform/ids.js';

describe('ids', () => {
  it('are prefixed, sort by creation time, and stay in order within one millisecond', () => {
    const at = Date.parse('2026-03-04T05:06:07.008Z');
    const sameMillisecond = Array.from({ length: 50 }, () => newId('request', at));
    const later = newId('request', at + 1);
    expect(sameMillisecond.every((id) => hasPrefix('request', id))).toBe(true);
    expect([...sameMillisecond].sort()).toEqual(sameMillisecond);
    expect(new Set(sameMillisecond).size).toBe(50);
    expect(later > sameMillisecond[49]).toBe(true);
  });

  it('draw a fresh random part for every new millisecond, well spread over the alphabet', () => {
    const start = Date.parse('2026-03-04T05:06:07.008Z');
    const randomParts = Array.from({ length: 2000 }, (_, index) => newId('alert', start + 10 + index).slice(-16));
    expect(new Set(randomParts).size).toBe(2000);
    const firstCharacters = new Set(randomParts.map((part) => part[0]));
    expect(firstCharacters.size).toBe(32);
  });
});
