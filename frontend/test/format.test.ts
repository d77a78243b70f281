import { describe, expect, it } from 'vitest';
import { folderName, pendingLabel, usageLabel } from '../src/lib/format';

describe('usageLabel', () => {
  it.each([
    { u: undefined, want: '' },
    { u: { promptTokens: 12, outputTokens: 7, durationNs: 1_500_000_000 }, want: '12 prompt · 7 output tokens · 1.5 s' },
    { u: { promptTokens: 12, outputTokens: 7, durationNs: 0 }, want: '12 prompt · 7 output tokens' },
    { u: { promptTokens: 1, outputTokens: 2, durationNs: 12_400_000_000 }, want: '1 prompt · 2 output tokens · 12 s' },
  ])('$want', ({ u, want }) => {
    expect(usageLabel(u)).toBe(want);
  });
});

describe('pendingLabel', () => {
  it.each([
    ['steer', true, 'Will be added to the current request'],
    ['inject', true, 'Will be added to the current request'],
    ['follow_up', true, 'Queued: runs after the current request'],
    ['follow_up', false, 'Sending…'],
  ] as const)('%s (request going: %s) -> %s', (intent, going, want) => {
    expect(pendingLabel(intent, going)).toBe(want);
  });
});

describe('usageLabel of a cut-off reply', () => {
  it('an all-zero usage says nothing', () => {
    expect(usageLabel({ promptTokens: 0, outputTokens: 0, durationNs: 0 })).toBe('');
  });
  it('zero prompt tokens with some output still shows', () => {
    expect(usageLabel({ promptTokens: 0, outputTokens: 3, durationNs: 0 })).toBe('0 prompt · 3 output tokens');
  });
});

describe('folderName', () => {
  it.each([
    ['/home/ann/Notes', 'Notes'],
    ['/home/ann/Notes/', 'Notes'],
    ['  /home/ann/My Notes  ', 'My Notes'],
    ['C:\\Users\\ann\\Notes', 'Notes'],
    ['C:\\Users\\ann\\Notes\\', 'Notes'],
    ['C:\\', 'C:'],
    ['/', '/'],
    ['Notes', 'Notes'],
    ['', ''],
  ])('%j -> %j', (path, want) => {
    expect(folderName(path)).toBe(want);
  });
});
