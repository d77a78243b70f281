// @vitest-environment jsdom
// The sidebar's list of chats while the host's list is on its way, mounted
// in jsdom over a stand-in for the chat store: only what it reads.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import Sidebar from '../src/components/Sidebar.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';

let mounted: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});

function show(listLoaded: boolean) {
  const chat = { sessions: [], listLoaded, activeId: null, notesDir: '', notesDirError: null, choosingFolder: false, choosesFolderInDialog: false } as unknown as ChatStore;
  mounted = mount(Sidebar, { target: document.body, props: { chat } });
  flushSync();
  return document.querySelector<HTMLElement>('[data-testid="session-list"]')!;
}

describe('Sidebar', () => {
  it('says nothing of the chats while their list loads (a user with chats never reads "No chats yet.")', () => {
    const list = show(false);
    expect(list.getAttribute('aria-busy')).toBe('true');
    expect(list.textContent).not.toContain('No chats yet.');
  });

  it('says there are none once the list came empty', () => {
    const list = show(true);
    expect(list.getAttribute('aria-busy')).toBe('false');
    expect(list.textContent).toContain('No chats yet.');
  });
});
