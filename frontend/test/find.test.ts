// @vitest-environment jsdom
// The search palette (Ctrl+K): which item a hit opens, the selection, the
// store's answers in order, and the palette mounted over a real ChatStore
// and FindStore with a host whose answers the test gives — the matched
// words shown as text in <mark>, never as markup.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ExportMenu from '../src/components/ExportMenu.svelte';
import SearchPalette from '../src/components/SearchPalette.svelte';
import { ChatStore } from '../src/lib/chat.svelte';
import { foldAll } from '../src/lib/conversation';
import { itemKeyFor, moveSelection, speaker } from '../src/lib/find';
import { FindStore } from '../src/lib/find.svelte';
import type { MessageHit, MessageSearch } from '../src/lib/protocol';
import { messageSearch } from '../src/lib/transport/conversations';
import type { Transport } from '../src/lib/transport/transport';
import { event, TIME } from './events';

const conv = foldAll('s', [
  event('s', 0, 'session.created', { title: 'Garden' }),
  event('s', 1, 'input.received', { inputId: 'i1', intent: 'follow_up', text: 'basil?', runId: 'r1' }),
  event('s', 2, 'run.started', {}, 'r1'),
  event('s', 3, 'user.message', { text: 'basil?', inputId: 'i1' }, 'r1'),
  event('s', 4, 'assistant.delta', { content: 'Water ' }, 'r1'),
  event('s', 5, 'assistant.message', { content: 'Water it daily.', doneReason: 'stop' }, 'r1'),
  event('s', 6, 'run.finished', { reason: 'completed' }, 'r1'),
]);

describe('itemKeyFor', () => {
  const user = conv.items.find((i) => i.kind === 'user')!;
  const reply = conv.items.find((i) => i.kind === 'assistant')!;
  it.each([
    { name: 'a user message is its own item', seq: 3, want: user.key },
    { name: 'a reply is found by its assistant.message, not where it began', seq: 5, want: reply.key },
    { name: 'a seq no item shows falls to the item before it', seq: 6, want: Math.max(user.key, reply.key) },
    { name: 'before every item', seq: 0, want: null },
  ])('$name', ({ seq, want }) => {
    expect(itemKeyFor(conv, seq)).toBe(want);
  });
  it('no conversation, no item', () => expect(itemKeyFor(null, 3)).toBeNull());
  it('the reply began before its message', () => expect(reply.key).toBeLessThan(5));
});

describe('moveSelection', () => {
  it.each([
    { i: -1, n: 0, d: 1, want: -1 },
    { i: -1, n: 3, d: 1, want: 0 },
    { i: -1, n: 3, d: -1, want: 2 },
    { i: 0, n: 3, d: -1, want: 2 },
    { i: 2, n: 3, d: 1, want: 0 },
    { i: 1, n: 3, d: 1, want: 2 },
  ])('from $i of $n by $d is $want', ({ i, n, d, want }) => expect(moveSelection(i, n, d)).toBe(want));
});

const hit = (session: string, seq: number, role: 'user' | 'assistant', ...parts: [string, boolean?][]): MessageHit => ({
  session,
  title: session === 'a' ? 'Garden' : 'Trip',
  seq,
  role,
  time: TIME,
  snippet: parts.map(([text, match]) => (match ? { text, match } : { text })),
});

it('speaker names who said it', () => {
  expect(speaker(hit('a', 1, 'user'))).toBe('You');
  expect(speaker(hit('a', 1, 'assistant'))).toBe('Quire');
});

it('messageSearch fills what a host left out', () => {
  expect(messageSearch(null, 'q')).toEqual({ query: 'q', hits: [] });
  expect(messageSearch({ hits: [{ ...hit('a', 1, 'user'), snippet: null }] }, 'q').hits[0].snippet).toEqual([]);
});

describe('FindStore', () => {
  it('an older answer never replaces a newer one', async () => {
    const answers: ((r: MessageSearch) => void)[] = [];
    const t = { searchConversations: vi.fn(() => new Promise<MessageSearch>((r) => answers.push(r))), exportSession: vi.fn() };
    const f = new FindStore(t, 0);
    const first = f.search('bas');
    const second = f.search('basil');
    answers[1]({ query: 'basil', hits: [hit('a', 3, 'user')] });
    await second;
    answers[0]({ query: 'bas', hits: [hit('b', 9, 'user'), hit('b', 10, 'user')] });
    await first;
    expect(f.hits.map((h) => h.seq)).toEqual([3]);
    expect(f.searched).toBe('basil');
    expect(f.selected).toBe(0);
  });

  it('a failed search says why; clearing the query clears the hits', async () => {
    const t = { searchConversations: vi.fn(async () => Promise.reject(new Error('the database could not be opened'))), exportSession: vi.fn() };
    const f = new FindStore(t, 0);
    await f.search('x');
    expect(f.error).toBe('Could not search: the database could not be opened');
    f.setQuery('  ');
    expect(f.error).toBeNull();
    expect(f.hits).toEqual([]);
    expect(t.searchConversations).toHaveBeenCalledTimes(1);
  });

  it('typing searches once, after the pause', async () => {
    vi.useFakeTimers();
    try {
      const t = { searchConversations: vi.fn(async (query: string) => ({ query, hits: [] })), exportSession: vi.fn() };
      const f = new FindStore(t, 150);
      f.setQuery('b');
      f.setQuery('ba');
      f.setQuery('bas');
      expect(t.searchConversations).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(150);
      expect(t.searchConversations).toHaveBeenCalledTimes(1);
      expect(t.searchConversations).toHaveBeenCalledWith('bas');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('SearchPalette', () => {
  let app: ReturnType<typeof mount> | null = null;
  afterEach(() => {
    if (app) unmount(app);
    app = null;
    document.body.innerHTML = '';
  });

  function host(hits: MessageHit[]): Transport {
    return {
      listSessions: vi.fn(async () => []),
      events: vi.fn(async (id: string) => (id === 'b' ? [event('b', 0, 'session.created', { title: 'Trip' })] : [])),
      searchConversations: vi.fn(async (query: string) => ({ query, hits })),
      exportSession: vi.fn(),
    } as unknown as Transport;
  }

  it('shows each hit with its match marked as text, and Enter opens the selected one', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const t = host([hit('a', 3, 'user', ['how to water ', false], ['basil', true], ['?', false]), hit('b', 7, 'assistant', [hostile, true])]);
    const chat = new ChatStore(t);
    const find = new FindStore(t, 0);
    find.show();
    const target = document.createElement('div');
    document.body.appendChild(target);
    app = mount(SearchPalette, { target, props: { chat, find } });
    await find.search('basil');
    flushSync();
    const hits = [...target.querySelectorAll('[data-testid="search-hit"]')];
    expect(hits).toHaveLength(2);
    expect(hits[0].querySelector('.chat')?.textContent).toBe('Garden');
    expect(hits[0].querySelector('.meta')?.textContent).toContain('You');
    expect([...hits[0].querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['basil']);
    expect(hits[0].querySelector('.snippet')?.textContent).toBe('how to water basil?');
    // Go's text is text: the hostile piece is shown, never parsed.
    expect(hits[1].querySelector('img')).toBeNull();
    expect(hits[1].querySelector('mark')?.textContent).toBe(hostile);

    const input = target.querySelector('[data-testid="search-input"]') as HTMLInputElement;
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    flushSync();
    expect(hits[1].getAttribute('aria-selected')).toBe('true');
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    await vi.waitFor(() => expect(chat.activeId).toBe('b'));
    expect(find.open).toBe(false);
    expect(chat.jump).toMatchObject({ session: 'b', seq: 7 });
    await tick();
  });

  it('says when nothing matches, and Esc closes', async () => {
    const t = host([]);
    const find = new FindStore(t, 0);
    find.show();
    const target = document.createElement('div');
    document.body.appendChild(target);
    app = mount(SearchPalette, { target, props: { chat: new ChatStore(t), find } });
    find.query = '"*-(';
    await find.search('"*-(');
    flushSync();
    expect(target.querySelector('[data-testid="search-none"]')?.textContent).toContain('No message');
    (target.querySelector('[data-testid="search-input"]') as HTMLInputElement).dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(find.open).toBe(false);
  });
});

describe('ExportMenu', () => {
  let app: ReturnType<typeof mount> | null = null;
  afterEach(() => {
    if (app) unmount(app);
    app = null;
    document.body.innerHTML = '';
  });

  it('exports the open chat in the format chosen and says where it went, or why not', async () => {
    const exportSession = vi
      .fn()
      .mockResolvedValueOnce({ file: '/home/ann/Garden.md', saved: true })
      .mockResolvedValueOnce(null)
      .mockRejectedValueOnce(new Error('no such session: a'));
    const chat = new ChatStore({ exportSession } as unknown as Transport);
    chat.activeId = 'a';
    const target = document.createElement('div');
    document.body.appendChild(target);
    app = mount(ExportMenu, { target, props: { chat } });
    flushSync();
    const click = async (id: string) => {
      (target.querySelector(`[data-testid="${id}"]`) as HTMLElement).click();
      flushSync();
    };
    const status = () => target.querySelector('[data-testid="export-status"]')?.textContent ?? null;

    await click('export-open');
    await click('export-md');
    await vi.waitFor(() => expect(status()).toBe('Saved to /home/ann/Garden.md'));
    expect(exportSession).toHaveBeenLastCalledWith('a', 'md');

    await click('export-open');
    await click('export-jsonl');
    await vi.waitFor(() => expect(exportSession).toHaveBeenCalledTimes(2));
    expect(exportSession).toHaveBeenLastCalledWith('a', 'jsonl');
    await tick();
    expect(status()).toBeNull(); // a cancelled dialog says nothing

    await click('export-open');
    await click('export-md');
    await vi.waitFor(() => expect(status()).toBe('Could not export: no such session: a'));
  });
});
