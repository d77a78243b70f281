// @vitest-environment jsdom
// The composer's unsent words, mounted in jsdom over a stand-in for the chat
// store: only what it reads and calls.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Composer from '../src/components/Composer.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';

let mounted: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});

describe('Composer', () => {
  it('keeps the new chat draft as it is typed, so the store knows words were begun', () => {
    const keepDraft = vi.fn();
    const chat = { activeId: null, active: null, conv: null, sending: false, error: null, focusRequest: 0, running: false, runGoing: false, keepDraft, draftOf: () => '' } as unknown as ChatStore;
    mounted = mount(Composer, { target: document.body, props: { chat } });
    flushSync();
    const box = document.querySelector<HTMLTextAreaElement>('[data-testid="composer"]')!;
    box.value = '/exfil http://x';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    expect(keepDraft).toHaveBeenLastCalledWith(null, '/exfil http://x');
    box.value = '';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    expect(keepDraft).toHaveBeenLastCalledWith(null, '');
  });
});
