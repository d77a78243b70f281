// @vitest-environment jsdom
// Issue 31: the browser's own tooltips lingered after the pointer left and
// were cut at the window's edge. Quire's tip is placed inside the window
// and goes the moment the pointer does, giving the element its title back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { followTips, MARGIN, placeTip, type Tip } from '../src/lib/tooltip';

describe('placeTip', () => {
  const view = { width: 800, height: 600 };
  it.each([
    { name: 'under the element, centred', anchor: { left: 300, top: 100, width: 100, height: 30 }, tip: { width: 60, height: 20 }, want: { left: 320, top: 136 } },
    { name: 'at the right edge: moved in, whole', anchor: { left: 770, top: 10, width: 28, height: 28 }, tip: { width: 200, height: 20 }, want: { left: 800 - MARGIN - 200, top: 44 } },
    { name: 'at the left edge: moved in', anchor: { left: 0, top: 10, width: 20, height: 20 }, tip: { width: 100, height: 20 }, want: { left: MARGIN, top: 36 } },
    { name: 'no room below: above', anchor: { left: 300, top: 570, width: 100, height: 24 }, tip: { width: 60, height: 40 }, want: { left: 320, top: 524 } },
    { name: 'wider than the window: from the margin', anchor: { left: 300, top: 100, width: 10, height: 10 }, tip: { width: 900, height: 20 }, want: { left: MARGIN, top: 116 } },
  ])('$name', ({ anchor, tip, want }) => {
    const got = placeTip(anchor, tip, view);
    expect(got).toEqual(want);
    if (tip.width <= view.width - 2 * MARGIN) expect(got.left + tip.width).toBeLessThanOrEqual(view.width - MARGIN); // whole inside
  });
});

describe('followTips', () => {
  afterEach(() => {
    vi.useRealTimers();
    document.body.innerHTML = '';
  });

  function setup() {
    vi.useFakeTimers();
    document.body.innerHTML = '<button id="b" title="Search all chats (Ctrl+K)"><span id="inner">Search</span></button><p id="p">text</p>';
    const shown: (Tip | null)[] = [];
    const stop = followTips(document, (t) => shown.push(t), 100);
    const b = document.getElementById('b')!;
    const over = (el: Element) => el.dispatchEvent(new Event('pointerover', { bubbles: true }));
    const out = (el: Element, to: Element | null) => el.dispatchEvent(Object.assign(new Event('pointerout', { bubbles: true }), { relatedTarget: to }));
    return { shown, stop, b, over, out, last: () => shown.at(-1) };
  }

  it('shows the title after the pointer rests, with no native tooltip meanwhile', () => {
    const { b, over, last, stop } = setup();
    over(document.getElementById('inner')!);
    expect(b.hasAttribute('title')).toBe(false); // the browser's own tip cannot show
    vi.advanceTimersByTime(99);
    expect(last()).toBeFalsy();
    vi.advanceTimersByTime(1);
    expect(last()?.text).toBe('Search all chats (Ctrl+K)');
    stop();
    expect(b.getAttribute('title')).toBe('Search all chats (Ctrl+K)');
  });

  it.each([
    { name: 'the pointer leaves', act: (h: ReturnType<typeof setup>) => h.out(h.b, document.getElementById('p')) },
    { name: 'the pointer leaves the window', act: (h: ReturnType<typeof setup>) => h.out(h.b, null) },
    { name: 'a press', act: () => document.dispatchEvent(new Event('pointerdown', { bubbles: true })) },
    { name: 'a key', act: () => document.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, key: 'a' })) },
    { name: 'a scroll', act: () => document.dispatchEvent(new Event('scroll')) },
  ])('goes at once when $name, and the title comes back', ({ act }) => {
    const h = setup();
    h.over(h.b);
    vi.advanceTimersByTime(100);
    expect(h.last()?.text).toBe('Search all chats (Ctrl+K)');
    act(h);
    expect(h.last()).toBeNull();
    expect(h.b.getAttribute('title')).toBe('Search all chats (Ctrl+K)');
    h.stop();
  });

  it('moving within the element keeps the tip', () => {
    const h = setup();
    h.over(h.b);
    vi.advanceTimersByTime(100);
    h.out(h.b, document.getElementById('inner'));
    h.over(document.getElementById('inner')!);
    expect(h.last()?.text).toBe('Search all chats (Ctrl+K)');
    h.stop();
  });

  it('an element removed before the delay shows nothing', () => {
    const h = setup();
    h.over(h.b);
    h.b.remove();
    vi.advanceTimersByTime(100);
    expect(h.shown.filter(Boolean)).toHaveLength(0);
    h.stop();
  });
});
