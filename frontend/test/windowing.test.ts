import { describe, expect, it } from 'vitest';
import { anchorShift, ConversationView, countAfter, indexOfSeq, offsetOf, windowRange } from '../src/lib/windowing';

const tens = (n: number) => Array.from({ length: n }, () => 10);

describe('windowRange', () => {
  it.each([
    { name: 'no items', heights: [], top: 0, vp: 100, os: 0, want: { start: 0, end: 0, before: 0, after: 0 } },
    { name: 'the top', heights: tens(100), top: 0, vp: 50, os: 0, want: { start: 0, end: 5, before: 0, after: 950 } },
    { name: 'the middle', heights: tens(100), top: 500, vp: 50, os: 0, want: { start: 50, end: 55, before: 500, after: 450 } },
    { name: 'the middle with overscan', heights: tens(100), top: 500, vp: 50, os: 100, want: { start: 40, end: 65, before: 400, after: 350 } },
    { name: 'the bottom', heights: tens(100), top: 950, vp: 50, os: 0, want: { start: 95, end: 100, before: 950, after: 0 } },
    { name: 'an item across the top edge is drawn', heights: tens(100), top: 505, vp: 50, os: 0, want: { start: 50, end: 56, before: 500, after: 440 } },
    { name: 'past the end draws the last one', heights: tens(10), top: 5000, vp: 50, os: 0, want: { start: 9, end: 10, before: 90, after: 0 } },
    { name: 'a negative scroll (elastic) is the top', heights: tens(10), top: -40, vp: 20, os: 0, want: { start: 0, end: 2, before: 0, after: 80 } },
    { name: 'uneven heights', heights: [100, 5, 5, 300, 10], top: 104, vp: 10, os: 0, want: { start: 1, end: 4, before: 100, after: 10 } },
    { name: 'a zero viewport still draws one', heights: tens(10), top: 30, vp: 0, os: 0, want: { start: 3, end: 4, before: 30, after: 60 } },
  ])('$name', ({ heights, top, vp, os, want }) => {
    const got = windowRange(heights, top, vp, os);
    expect(got).toEqual(want);
    // The spacers and the drawn items always add up to the whole height.
    const drawn = heights.slice(got.start, got.end).reduce((a, b) => a + b, 0);
    expect(got.before + drawn + got.after).toBe(heights.reduce((a, b) => a + b, 0));
  });

  it('draws a bounded number of items however long the conversation', () => {
    const heights = tens(100_000);
    const r = windowRange(heights, 500_000, 800, 1200);
    expect(r.end - r.start).toBeLessThanOrEqual(321);
    expect(r.before).toBe(offsetOf(heights, r.start));
  });
});

describe('indexOfSeq and countAfter', () => {
  const keys = [3, 8, 15, 40];
  it.each([
    { seq: 0, index: -1, after: 4 },
    { seq: 3, index: 0, after: 3 },
    { seq: 9, index: 1, after: 2 },
    { seq: 40, index: 3, after: 0 },
    { seq: 99, index: 3, after: 0 },
  ])('seq $seq is in item $index, with $after after it', ({ seq, index, after }) => {
    expect(indexOfSeq(keys, seq)).toBe(index);
    expect(countAfter(keys, seq)).toBe(after);
  });
});

describe('anchorShift', () => {
  it.each([
    { name: 'an item above the viewport moves it', index: 1, scrollTop: 25, shift: 7 },
    { name: 'an item across the top edge does not', index: 2, scrollTop: 25, shift: 0 },
    { name: 'an item below does not', index: 5, scrollTop: 25, shift: 0 },
  ])('$name', ({ index, scrollTop, shift }) => {
    expect(anchorShift(tens(10), index, 7, scrollTop)).toBe(shift);
  });
});

describe('ConversationView', () => {
  it('reveals through the list attached last, and says false with none', async () => {
    const v = new ConversationView();
    expect(await v.reveal(3)).toBe(false);
    const asked: string[] = [];
    const first = v.attach(async (seq) => (asked.push(`first:${seq}`), true));
    const second = v.attach(async (seq) => (asked.push(`second:${seq}`), seq > 5));
    expect(await v.reveal(9)).toBe(true);
    expect(await v.reveal(2)).toBe(false);
    first(); // a list that was replaced detaching does not detach its successor
    expect(await v.reveal(7)).toBe(true);
    second();
    expect(await v.reveal(7)).toBe(false);
    expect(asked).toEqual(['second:9', 'second:2', 'second:7']);
  });
});
