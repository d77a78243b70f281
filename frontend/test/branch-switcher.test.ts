// @vitest-environment jsdom
// The ‹ 2/3 › on the message where branches diverge: it says which version
// is shown, its arrows open the previous or next one, and an arrow with no
// version beyond it is disabled.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import BranchSwitcher from '../src/components/BranchSwitcher.svelte';
import type { Switcher } from '../src/lib/branches';
import type { ChatStore } from '../src/lib/chat.svelte';

let mounted: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});

function show(switcher: Switcher) {
  const opened: string[] = [];
  const chat = { switchTo: (id: string) => (opened.push(id), Promise.resolve()) } as unknown as ChatStore;
  mounted = mount(BranchSwitcher, { target: document.body, props: { chat, switcher } });
  flushSync();
  const q = (id: string) => document.querySelector<HTMLButtonElement>(`[data-testid="${id}"]`)!;
  return { opened, prev: q('branch-prev'), next: q('branch-next'), position: q('branch-position').textContent };
}

describe('BranchSwitcher', () => {
  it.each([
    { index: 0, position: '1/3', prev: true, next: false, clicks: ['next'], opens: ['b'] },
    { index: 1, position: '2/3', prev: false, next: false, clicks: ['prev', 'next'], opens: ['a', 'c'] },
    { index: 2, position: '3/3', prev: false, next: true, clicks: ['prev'], opens: ['b'] },
  ])('showing version $position', ({ index, position, prev, next, clicks, opens }) => {
    const v = show({ versions: ['a', 'b', 'c'], index });
    expect(v.position).toBe(position);
    expect([v.prev.disabled, v.next.disabled]).toEqual([prev, next]);
    for (const c of clicks) (c === 'prev' ? v.prev : v.next).click();
    expect(v.opened).toEqual(opens);
  });
});
