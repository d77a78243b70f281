import { describe, expect, it } from 'vitest';
import { SidebarLayout, type LayoutHost } from '../src/lib/layout.svelte';

function host(narrow: boolean, stored: Record<string, string> = {}) {
  const data = { ...stored };
  const listeners: ((e: MediaQueryListEvent) => void)[] = [];
  const media = {
    matches: narrow,
    addEventListener: (_: string, fn: (e: MediaQueryListEvent) => void) => listeners.push(fn),
    removeEventListener: (_: string, fn: (e: MediaQueryListEvent) => void) => listeners.splice(listeners.indexOf(fn), 1),
  } as unknown as LayoutHost['media'];
  const storage = { getItem: (k: string) => data[k] ?? null, setItem: (k: string, v: string) => void (data[k] = v) };
  const resize = (n: boolean) => listeners.forEach((fn) => fn({ matches: n } as MediaQueryListEvent));
  return { h: { storage, media } as LayoutHost, data, resize, listeners };
}

describe('SidebarLayout', () => {
  it.each([
    { name: 'wide, nothing chosen: open', narrow: false, stored: {} as Record<string, string>, collapsed: false },
    { name: 'narrow, nothing chosen: collapsed', narrow: true, stored: {}, collapsed: true },
    { name: 'wide, collapsed before', narrow: false, stored: { 'quire.sidebar.wide': 'collapsed' }, collapsed: true },
    { name: 'narrow, opened before', narrow: true, stored: { 'quire.sidebar.narrow': 'open' }, collapsed: false },
    { name: 'a choice for the other width does not apply', narrow: true, stored: { 'quire.sidebar.wide': 'open' }, collapsed: true },
    { name: 'a stored value that is not a choice is ignored', narrow: false, stored: { 'quire.sidebar.wide': 'sideways' }, collapsed: false },
  ])('$name', ({ narrow, stored, collapsed }) => {
    expect(new SidebarLayout(host(narrow, stored).h).collapsed).toBe(collapsed);
  });

  it('the toggle is remembered for the width it was made at', () => {
    const { h, data, resize, listeners } = host(false);
    const l = new SidebarLayout(h);
    const stop = l.start();
    l.toggle();
    expect(l.collapsed).toBe(true);
    expect(data['quire.sidebar.wide']).toBe('collapsed');
    resize(true); // narrower: collapsed by default there
    expect(l.collapsed).toBe(true);
    l.toggle();
    expect(l.collapsed).toBe(false);
    expect(data['quire.sidebar.narrow']).toBe('open');
    resize(false);
    expect(l.collapsed).toBe(true);
    expect(new SidebarLayout(h).collapsed).toBe(true); // a new window remembers
    stop();
    expect(listeners).toHaveLength(0);
  });

  it('works without storage', () => {
    const l = new SidebarLayout({ storage: null, media: null });
    l.toggle();
    expect(l.collapsed).toBe(true);
  });
});
