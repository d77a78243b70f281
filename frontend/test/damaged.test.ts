// @vitest-environment jsdom
// A damaged chat (Session.damaged) in the sidebar and the composer, mounted
// in jsdom over a stand-in for the chat store: only what they read.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import Composer from '../src/components/Composer.svelte';
import Sidebar from '../src/components/Sidebar.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';
import type { Session } from '../src/lib/protocol';

function session(id: string, over: Partial<Session> = {}): Session {
  return { id, title: id, createdAt: '2026-11-30T10:00:00Z', updatedAt: '2026-11-30T10:00:00Z', lastSeq: 3, running: false, ...over };
}

let mounted: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});

function show(sessions: Session[]) {
  const chat = { sessions, activeId: null, notesDir: '', notesDirError: null, choosingFolder: false, choosesFolderInDialog: false } as unknown as ChatStore;
  mounted = mount(Sidebar, { target: document.body, props: { chat } });
  flushSync();
}

describe('Sidebar', () => {
  it('marks a damaged chat and says why in its tooltip, and only that one', () => {
    const reason = 'session b, event 1 (input.received): payload does not decode: unexpected EOF';
    show([session('a', { title: 'Healthy' }), session('b', { title: 'Broken', damaged: reason })]);
    const items = [...document.querySelectorAll<HTMLElement>('[data-testid="session-item"]')];
    expect(items.map((i) => i.dataset.sessionId)).toEqual(['a', 'b']);
    expect(items[0].querySelector('[data-testid="session-damaged"]')).toBeNull();
    const badge = items[1].querySelector<HTMLElement>('[data-testid="session-damaged"]');
    expect(badge?.textContent).toBe('Damaged');
    expect(badge?.title).toContain(reason);
    expect(badge?.title).toContain('delete');
  });
});

describe('Composer', () => {
  function compose(active: Session) {
    const chat = { active, sending: false, error: null, focusRequest: 0, running: false, runGoing: false } as unknown as ChatStore;
    mounted = mount(Composer, { target: document.body, props: { chat } });
    flushSync();
  }

  it('takes no message for a damaged chat and says why', () => {
    compose(session('b', { damaged: 'session b, event 1 (input.received): its payload is not JSON' }));
    const box = document.querySelector<HTMLTextAreaElement>('[data-testid="composer"]')!;
    expect(box.disabled).toBe(true);
    expect(document.querySelector('[data-testid="damaged-notice"]')?.textContent).toContain('cannot be continued');
    expect(document.querySelector<HTMLButtonElement>('[data-testid="send"]')!.disabled).toBe(true);
  });

  it('takes messages for a healthy chat', () => {
    compose(session('a'));
    expect(document.querySelector<HTMLTextAreaElement>('[data-testid="composer"]')!.disabled).toBe(false);
    expect(document.querySelector('[data-testid="damaged-notice"]')).toBeNull();
  });
});
