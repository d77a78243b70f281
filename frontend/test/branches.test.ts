import { describe, expect, it, vi } from 'vitest';
import { conversationRows, itemKey, lineage, siblings, switchers } from '../src/lib/branches';
import { ChatStore, continuable } from '../src/lib/chat.svelte';
import { CONTINUE_NOTICE, foldAll } from '../src/lib/conversation';
import type { BranchResult, FinishReason, QEvent, Session } from '../src/lib/protocol';
import type { Transport } from '../src/lib/transport/transport';
import { event as ev } from './events';

function s(id: string, created: number, parent?: string, parentSeq?: number): Session {
  const at = `2026-11-30T10:00:${String(created).padStart(2, '0')}Z`;
  const out: Session = { id, title: id, createdAt: at, updatedAt: at, lastSeq: 0, running: false };
  if (parent) out.parent = parent;
  if (parentSeq) out.parentSeq = parentSeq; // Go leaves a seq of 0 out (omitempty)
  return out;
}

// root ── b1, b2 (both from seq 4) ── b1 ── c (from b1's seq 6); other alone.
const list = [s('other', 9), s('c', 5, 'b1', 6), s('b2', 3, 'root', 4), s('b1', 2, 'root', 4), s('root', 1)];

describe('branches', () => {
  it.each([
    ['a conversation of its own', 'root', [['root', Infinity]]],
    ['a branch', 'b2', [['root', 4], ['b2', Infinity]]],
    ['a branch of a branch', 'c', [['root', 4], ['b1', 6], ['c', Infinity]]],
    ['a branch whose parent is not listed (yet): that part is read, and ends the chain', 'x', [['gone', 2], ['x', Infinity]]],
  ])('lineage of %s', (_, id, want) => {
    const all = [...list, s('x', 7, 'gone', 2)];
    expect(lineage(all, id).map((p) => [p.session, p.upTo])).toEqual(want);
  });

  it('a loop of parents (a damaged log) ends the lineage instead of going round', () => {
    const loop = [s('a', 1, 'b', 1), s('b', 2, 'a', 1)];
    expect(lineage(loop, 'a').map((p) => p.session)).toEqual(['b', 'a']);
  });

  it('siblings are the original then its branches from that point, oldest first', () => {
    expect(siblings(list, 'root', 4)).toEqual(['root', 'b1', 'b2']);
    expect(siblings(list, 'b1', 6)).toEqual(['b1', 'c']);
    expect(siblings(list, 'root', 9)).toEqual(['root']);
  });

  it('switchers go on the first item after each branch point, saying which version is shown', () => {
    // Showing root whole: items at 1, 3 (before the point), 5, 7 (after it).
    const onRoot = switchers(list, [{ session: 'root', upTo: Infinity }], [[1, 3, 5, 7]]);
    expect([...onRoot.entries()]).toEqual([[itemKey('root', 5), { versions: ['root', 'b1', 'b2'], index: 0 }]]);
    // Showing c: root up to 4, b1 up to 6, then c.
    const onC = switchers(list, lineage(list, 'c'), [[1, 3, 5], [2, 4, 7], [2, 3]]);
    expect(onC.get(itemKey('b1', 2))).toEqual({ versions: ['root', 'b1', 'b2'], index: 1 });
    expect(onC.get(itemKey('c', 2))).toEqual({ versions: ['b1', 'c'], index: 1 });
    expect(onC.has(itemKey('root', 5))).toBe(false); // past the point shown, not shown
    expect(onC.size).toBe(2);
    // A branch with no sibling but its original still has a 2/2.
    const onB2 = switchers(list, lineage(list, 'b2'), [[1, 3], [2]]);
    expect(onB2.get(itemKey('b2', 2))).toEqual({ versions: ['root', 'b1', 'b2'], index: 2 });
  });

  // Issue 31: an edit showed its branch twice, as 2/2 in the chat and as a
  // second chat in the sidebar. The sidebar lists each conversation once.
  it.each([
    { name: 'nothing open: each conversation by its most recent version', active: null, want: ['other ×1', 'c ×4'] },
    { name: 'a branch open: its conversation’s row is that branch', active: 'b2', want: ['other ×1', 'b2 ×4'] },
    { name: 'the original open', active: 'root', want: ['other ×1', 'root ×4'] },
    { name: 'another conversation open', active: 'other', want: ['other ×1', 'c ×4'] },
  ])('the sidebar lists each conversation once, branches in it: $name', ({ active, want }) => {
    expect(conversationRows(list, active).map((r) => `${r.session.id} ×${r.versions}`)).toEqual(want);
  });

  it('a branch whose parent is not listed, and a loop of parents, still have rows', () => {
    const odd = [s('x', 7, 'gone', 2), s('p', 3, 'q'), s('q', 2, 'p')];
    expect(conversationRows(odd, null).map((r) => `${r.session.id} ×${r.versions}`)).toEqual(['x ×1', 'p ×1', 'q ×1']); // a loop (a damaged log): each still listed
  });

  it('continue is offered after a request that stopped before its end, not after one that completed', () => {
    const ended = (reason: FinishReason) =>
      foldAll('a', [
        ev('a', 0, 'session.created', { title: 'a' }),
        ev('a', 1, 'run.started', {}, 'r'),
        ev('a', 2, 'assistant.message', { step: 1, content: 'Half a', interrupted: true }, 'r'),
        ev('a', 3, 'run.finished', { reason }, 'r'),
      ]);
    expect((['interrupted', 'error', 'cancelled', 'completed', 'empty'] as FinishReason[]).filter((r) => continuable(ended(r)))).toEqual([
      'interrupted',
      'error',
      'cancelled',
    ]);
    expect(continuable(foldAll('a', [ev('a', 0, 'session.created', { title: 'a' })]))).toBe(false);
  });

  // Issue 31: with Ollama down the request fails before any reply; its
  // card offered only Continue, which tells the model its reply was cut
  // off. There is nothing to continue: the card offers Retry.
  it('a request that failed before any reply offers Retry, not Continue', () => {
    const c = foldAll('a', [
      ev('a', 0, 'session.created', { title: 'a' }),
      ev('a', 1, 'run.started', {}, 'r'),
      ev('a', 2, 'user.message', { text: 'hello' }, 'r'),
      ev('a', 3, 'run.finished', { reason: 'error', error: 'Ollama is not running at http://127.0.0.1:11434' }, 'r'),
    ]);
    expect(continuable(c)).toBe(false);
    const err = c.items.at(-1)!;
    expect([err.kind, err.retry]).toEqual(['error', 'hello']);
  });

  it("a continue's user message shows as a notice, not as the user's words", () => {
    const c = foldAll('a', [ev('a', 0, 'session.created', { title: 'a' }), ev('a', 1, 'user.message', { text: 'Your previous reply was cut off…', kind: 'continue' }, 'r')]);
    expect(c.items.map((i) => [i.kind, i.text])).toEqual([['notice', CONTINUE_NOTICE]]);
  });
});

/** A host holding a root conversation and, after an edit, its branch. */
function host() {
  const sessions: Session[] = [s('root', 1)];
  const logs = new Map<string, QEvent[]>([
    [
      'root',
      [
        ev('root', 0, 'session.created', { title: 'root' }),
        ev('root', 1, 'user.message', { text: 'hi' }),
        ev('root', 2, 'assistant.message', { content: 'hello' }, 'r1'),
        ev('root', 3, 'run.started', { model: 'm' }, 'r2'),
        ev('root', 4, 'user.message', { text: 'what is 2+2?' }),
        ev('root', 5, 'assistant.message', { content: '4' }, 'r2'),
      ],
    ],
  ]);
  const edits: [string, number, string][] = [];
  const t = {
    answersInPage: true,
    choosesFolderInDialog: false,
    subscribe: () => () => {},
    doctor: async () => ({ ok: true, checks: [] }),
    notesFolder: async () => '/notes',
    listSessions: async () => sessions.slice(),
    events: vi.fn(async (id: string, from: number) => (logs.get(id) ?? []).filter((e) => e.seq >= from)),
    editMessage: async (id: string, seq: number, text: string): Promise<BranchResult> => {
      edits.push([id, seq, text]);
      const b = s('b1', 2, id, seq - 1);
      sessions.unshift(b);
      logs.set('b1', [ev('b1', 0, 'session.created', { title: text }), ev('b1', 1, 'user.message', { text }), ev('b1', 2, 'assistant.message', { content: '6' }, 'r3')]);
      return { session: b, runId: 'r3' };
    },
  } as unknown as Transport;
  return { t, edits, logs };
}

const shown = (c: ChatStore) => [...c.inherited.flatMap((p) => p.items), ...(c.conv?.items ?? [])].map((i) => i.text);

describe('ChatStore branches', () => {
  it('an edit opens the branch with its whole history, and the switcher goes back to the original', async () => {
    const h = host();
    const c = new ChatStore(h.t);
    await c.start();
    expect(c.switchers.size).toBe(0);
    expect(await c.editMessage('root', 4, 'what is 3+3?')).toBe(true);
    expect(h.edits).toEqual([['root', 4, 'what is 3+3?']]);
    expect(c.activeId).toBe('b1');
    expect(shown(c)).toEqual(['hi', 'hello', 'what is 3+3?', '6']);
    expect(c.switchers.get(itemKey('b1', 1))).toEqual({ versions: ['root', 'b1'], index: 1 });

    await c.switchTo('root');
    expect(c.activeId).toBe('root');
    expect(c.inherited).toEqual([]);
    expect(shown(c)).toEqual(['hi', 'hello', 'what is 2+2?', '4']);
    expect(c.switchers.get(itemKey('root', 4))).toEqual({ versions: ['root', 'b1'], index: 0 });

    // Back again: the inherited part is not read a second time (it cannot change).
    const reads = (h.t.events as ReturnType<typeof vi.fn>).mock.calls.filter(([id]) => id === 'root').length;
    await c.switchTo('b1');
    expect(shown(c)).toEqual(['hi', 'hello', 'what is 3+3?', '6']);
    expect((h.t.events as ReturnType<typeof vi.fn>).mock.calls.filter(([id]) => id === 'root').length).toBe(reads);
  });

  it('an edit to nothing is not sent', async () => {
    const h = host();
    const c = new ChatStore(h.t);
    await c.start();
    expect(await c.editMessage('root', 4, '   ')).toBe(false);
    expect(h.edits).toEqual([]);
  });
});
