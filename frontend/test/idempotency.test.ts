import { describe, expect, it, vi } from 'vitest';
import { newIdempotencyKey } from '../src/lib/idempotency';

describe('newIdempotencyKey', () => {
  it('uses crypto.randomUUID where there is one', () => {
    expect(newIdempotencyKey({ randomUUID: () => '123e4567-e89b-42d3-a456-426614174000' })).toBe('123e4567-e89b-42d3-a456-426614174000');
  });

  it('without randomUUID (not a secure context), 16 random bytes as hex', () => {
    const getRandomValues = vi.fn((a: Uint8Array) => {
      a.forEach((_, i) => (a[i] = i * 17));
      return a;
    });
    expect(newIdempotencyKey({ getRandomValues })).toBe('00112233445566778899aabbccddeeff');
    expect(getRandomValues.mock.calls[0][0]).toHaveLength(16);
  });

  it('with the real crypto: fresh every time', () => {
    const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
    expect(keys.size).toBe(100);
    const viaBytes = newIdempotencyKey({ getRandomValues: (a) => crypto.getRandomValues(a) });
    expect(viaBytes).toMatch(/^[0-9a-f]{32}$/);
  });

  it('with no random numbers at all it refuses, in a sentence', () => {
    expect(() => newIdempotencyKey({})).toThrow(/cannot send safely/);
  });
});
