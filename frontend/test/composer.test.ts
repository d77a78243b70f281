// @vitest-environment jsdom
// The composer's unsent words, mounted in jsdom over a stand-in for the chat
// store: only what it reads and calls.
import { flushSync, mount, tick, unmount } from 'svelte';
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

describe('Composer focus', () => {
  const chat = () => ({ activeId: null, active: null, conv: null, sending: false, error: null, focusRequest: 0, running: false, runGoing: false, keepDraft: () => {}, draftOf: () => '' }) as unknown as ChatStore;
  const box = () => document.querySelector<HTMLTextAreaElement>('[data-testid="composer"]')!;

  it('takes the focus the store asks for when nothing else has it', async () => {
    mounted = mount(Composer, { target: document.body, props: { chat: chat() } });
    flushSync();
    await vi.waitFor(() => expect(document.activeElement).toBe(box()));
  });

  it('never takes it from another field being typed in (a path in the documents panel)', async () => {
    const path = document.createElement('input');
    document.body.append(path);
    path.focus();
    mounted = mount(Composer, { target: document.body, props: { chat: chat() } });
    flushSync();
    await tick(); // the effect's focus waits for the same tick
    expect(document.activeElement).toBe(path);
  });
});
