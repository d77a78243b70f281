import { describe, expect, it } from 'vitest';
import {
  emptyConversation,
  FALLBACK_ERROR,
  fold,
  foldAll,
  hasGap,
  STOPPED_NOTICE,
  type Conversation,
  type Item,
} from '../src/lib/conversation';
import type { QEvent } from '../src/lib/protocol';

const S = 'sess-1';
const usage = { promptTokens: 12, outputTokens: 7, durationNs: 1_500_000_000 };

function ev(seq: number, type: string, payload: unknown = {}, runId?: string, session = S): QEvent {
  return { session, seq, type, time: '2026-11-30T10:00:00Z', runId, visibility: 'public', payload };
}

// A typical log: created, user message, one streamed run.
const created = ev(0, 'session.created', { title: 'Hello' });
const user = ev(1, 'user.message', { text: 'hi there' });
const started = ev(2, 'run.started', { model: 'qwen3:0.6b' }, 'r1');
const d1 = ev(3, 'assistant.delta', { content: 'You ' }, 'r1');
const d2 = ev(4, 'assistant.delta', { content: 'said: ' }, 'r1');
const d3 = ev(5, 'assistant.delta', { content: 'hi there' }, 'r1');
const final = ev(
  6,
  'assistant.message',
  { content: 'You said: hi there', doneReason: 'stop', model: 'qwen3:0.6b', usage },
  'r1',
);
const done = ev(7, 'run.finished', { reason: 'completed' }, 'r1');

type Shape = Pick<Item, 'kind' | 'text'> & Partial<Item>;

/** Compares only the fields a case names, so each row states what it protects. */
function shape(items: readonly Item[], keys: (keyof Item)[] = ['kind', 'text']): Shape[] {
  return items.map((it) => {
    const o: Record<string, unknown> = {};
    for (const k of keys) if (it[k] !== undefined) o[k] = it[k];
    return o as Shape;
  });
}

interface Case {
  name: string;
  events: QEvent[];
  want: Shape[];
  keys?: (keyof Item)[];
  activeRun?: string | null;
  title?: string | null;
}

const cases: Case[] = [
  { name: 'empty log has no items', events: [], want: [], activeRun: null, title: null },
  { name: 'session.created sets the title and adds no item', events: [created], want: [], title: 'Hello' },
  {
    name: 'session.renamed replaces the title',
    events: [created, ev(1, 'session.renamed', { title: 'Renamed' })],
    want: [],
    title: 'Renamed',
  },
  { name: 'user.message becomes a user item', events: [created, user], want: [{ kind: 'user', text: 'hi there' }] },
  {
    name: 'run.started opens an empty streaming assistant item',
    events: [created, user, started],
    keys: ['kind', 'text', 'streaming', 'runId'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: '', streaming: true, runId: 'r1' },
    ],
    activeRun: 'r1',
  },
  {
    name: 'deltas accumulate into one streaming item',
    events: [created, user, started, d1, d2],
    keys: ['kind', 'text', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You said: ', streaming: true },
    ],
    activeRun: 'r1',
  },
  {
    name: 'deltas without run.started still open an item',
    events: [user, d1, d2],
    keys: ['kind', 'text', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You said: ', streaming: true },
    ],
  },
  {
    name: 'assistant.message replaces the deltas without duplicating them',
    events: [created, user, started, d1, d2, d3, final],
    keys: ['kind', 'text', 'streaming', 'usage'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You said: hi there', streaming: false, usage },
    ],
    activeRun: 'r1',
  },
  {
    name: 'assistant.message text wins over different delta text',
    events: [started, ev(3, 'assistant.delta', { content: 'draft' }, 'r1'), ev(4, 'assistant.message', { content: 'final', usage }, 'r1')],
    want: [{ kind: 'assistant', text: 'final' }],
  },
  {
    name: 'a completed run closes: no active run, reply kept',
    events: [created, user, started, d1, d2, d3, final, done],
    keys: ['kind', 'text', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You said: hi there', streaming: false },
    ],
    activeRun: null,
  },
  {
    name: 'assistant.message without deltas adds the reply',
    events: [user, started, final, done],
    want: [
      { kind: 'user', text: 'hi there' },
      { kind: 'assistant', text: 'You said: hi there' },
    ],
  },
  {
    name: 'run.finished error adds an error item with the sentence and drops the empty reply',
    events: [user, started, ev(3, 'run.finished', { reason: 'error', error: 'Ollama is not running.' }, 'r1')],
    keys: ['kind', 'text', 'runId'],
    want: [
      { kind: 'user', text: 'hi there' },
      { kind: 'error', text: 'Ollama is not running.', runId: 'r1' },
    ],
    activeRun: null,
  },
  {
    name: 'run.finished error after some text keeps the partial reply, closed',
    events: [user, started, d1, ev(4, 'run.finished', { reason: 'error', error: 'The model stopped.' }, 'r1')],
    keys: ['kind', 'text', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You ', streaming: false },
      { kind: 'error', text: 'The model stopped.', streaming: false },
    ],
  },
  {
    name: 'run.finished error without a sentence uses the fallback',
    events: [started, ev(3, 'run.finished', { reason: 'error' }, 'r1')],
    want: [{ kind: 'error', text: FALLBACK_ERROR }],
  },
  {
    name: 'cancelled after some text marks the reply as stopped',
    events: [user, started, d1, d2, ev(5, 'run.finished', { reason: 'cancelled' }, 'r1')],
    keys: ['kind', 'text', 'streaming', 'stopped'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You said: ', streaming: false, stopped: true },
    ],
    activeRun: null,
  },
  {
    name: 'cancelled before any text leaves a notice',
    events: [user, started, ev(3, 'run.finished', { reason: 'cancelled' }, 'r1')],
    want: [
      { kind: 'user', text: 'hi there' },
      { kind: 'notice', text: STOPPED_NOTICE },
    ],
  },
  {
    name: 'unknown types are ignored',
    events: [created, ev(1, 'memory.written', { x: 1 }), ev(2, 'user.message', { text: 'a' }), ev(3, 'tool.result', {})],
    want: [{ kind: 'user', text: 'a' }],
  },
  {
    name: 'a duplicate seq in the same batch is ignored',
    events: [user, user, started, d1, d1, d2],
    want: [
      { kind: 'user', text: 'hi there' },
      { kind: 'assistant', text: 'You said: ' },
    ],
  },
  {
    name: 'events of other sessions are ignored',
    events: [user, ev(2, 'user.message', { text: 'elsewhere' }, undefined, 'other'), started, d1],
    want: [
      { kind: 'user', text: 'hi there' },
      { kind: 'assistant', text: 'You ' },
    ],
  },
  {
    name: 'a batch out of order is folded in seq order',
    events: [d2, d1, started, user],
    want: [
      { kind: 'user', text: 'hi there' },
      { kind: 'assistant', text: 'You said: ' },
    ],
  },
  {
    name: 'thinking deltas accumulate apart from the text',
    events: [
      started,
      ev(3, 'assistant.delta', { thinking: 'Let me ' }, 'r1'),
      ev(4, 'assistant.delta', { thinking: 'think.' }, 'r1'),
      ev(5, 'assistant.delta', { content: 'Answer' }, 'r1'),
    ],
    keys: ['kind', 'text', 'thinking'],
    want: [{ kind: 'assistant', text: 'Answer', thinking: 'Let me think.' }],
  },
  {
    name: 'assistant.message thinking replaces streamed thinking',
    events: [
      started,
      ev(3, 'assistant.delta', { thinking: 'partial' }, 'r1'),
      ev(4, 'assistant.message', { content: 'A', thinking: 'whole thought', usage }, 'r1'),
    ],
    keys: ['kind', 'text', 'thinking'],
    want: [{ kind: 'assistant', text: 'A', thinking: 'whole thought' }],
  },
  {
    name: 'two runs give two replies in order',
    events: [
      user,
      started,
      final,
      done,
      ev(8, 'user.message', { text: 'again' }),
      ev(9, 'run.started', {}, 'r2'),
      ev(10, 'assistant.delta', { content: 'Sure' }, 'r2'),
    ],
    keys: ['kind', 'text', 'runId', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'You said: hi there', runId: 'r1', streaming: false },
      { kind: 'user', text: 'again', streaming: false },
      { kind: 'assistant', text: 'Sure', runId: 'r2', streaming: true },
    ],
    activeRun: 'r2',
  },
  {
    name: 'a tool-only step shows nothing and the next step opens a new reply',
    events: [
      user,
      started,
      ev(3, 'assistant.message', { content: '', toolCalls: [{ function: { name: 'search_docs' } }], usage }, 'r1'),
      ev(4, 'tool.result', { ok: true }, 'r1'),
      ev(5, 'assistant.delta', { content: 'Found it' }, 'r1'),
    ],
    keys: ['kind', 'text', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: 'Found it', streaming: true },
    ],
    activeRun: 'r1',
  },
  {
    name: 'deltas after a final message of the same run open a second reply',
    events: [started, ev(3, 'assistant.message', { content: 'Step one', usage }, 'r1'), ev(4, 'assistant.delta', { content: 'Step two' }, 'r1')],
    want: [
      { kind: 'assistant', text: 'Step one' },
      { kind: 'assistant', text: 'Step two' },
    ],
  },
  {
    name: 'a payload that is null does not throw',
    events: [ev(0, 'session.created', null), ev(1, 'user.message', null)],
    want: [{ kind: 'user', text: '' }],
  },
];

describe('fold', () => {
  it.each(cases)('$name', (c) => {
    const conv = foldAll(S, c.events);
    expect(shape(conv.items, c.keys)).toEqual(c.want);
    if (c.activeRun !== undefined) expect(conv.activeRun).toBe(c.activeRun);
    if (c.title !== undefined) expect(conv.title).toBe(c.title);
  });

  const whole = [created, user, started, d1, d2, d3, final, done];

  it.each(whole.map((_, i) => i))('folding in two batches split at %i equals one fold', (i) => {
    const once = foldAll(S, whole);
    const twice = fold(foldAll(S, whole.slice(0, i)), whole.slice(i));
    expect(twice.items).toEqual(once.items);
    expect(twice.lastSeq).toBe(once.lastSeq);
  });

  it('one event at a time equals one fold', () => {
    let c = emptyConversation(S);
    for (const e of whole) c = fold(c, [e]);
    expect(c.items).toEqual(foldAll(S, whole).items);
  });

  it('a replay after reconnect (the same seqs again) changes nothing', () => {
    const c = foldAll(S, whole);
    const again = fold(c, whole.slice(3));
    expect(again).toBe(c); // nothing new: the very same object
    expect(again.items.filter((i) => i.kind === 'assistant')).toHaveLength(1);
  });

  it('an overlapping catch-up neither loses nor doubles', () => {
    const live = fold(emptyConversation(S), [d2, d3]); // live events seen first
    const caught = fold(live, whole); // then the whole log
    expect(caught.items.map((i) => i.text)).toEqual(foldAll(S, whole).items.map((i) => i.text));
  });

  it('depends only on the set of events, not on batches or their order', () => {
    // A small deterministic PRNG, so a failure is reproducible.
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const log = [...whole, ev(8, 'user.message', { text: 'more' }), ev(9, 'run.started', {}, 'r2'), ev(10, 'assistant.delta', { content: 'x' }, 'r2'), ev(11, 'run.finished', { reason: 'cancelled' }, 'r2')];
    const want = foldAll(S, log);
    for (let round = 0; round < 200; round++) {
      const shuffled = log.slice().sort(() => rnd() - 0.5);
      // with some duplicates, as a reconnect would deliver
      const withDupes = shuffled.concat(shuffled.filter(() => rnd() < 0.3));
      let c = emptyConversation(S);
      for (let i = 0; i < withDupes.length; ) {
        const n = 1 + Math.floor(rnd() * 4);
        c = fold(c, withDupes.slice(i, i + n));
        i += n;
      }
      expect(c.items).toEqual(want.items);
      expect(c.activeRun).toBe(want.activeRun);
      expect(c.lastSeq).toBe(11);
      expect(c.lastFinishedSeq).toBe(11);
    }
  });

  it('never mutates its input', () => {
    const c = foldAll(S, [user, started, d1]);
    const items = c.items.slice();
    const itemCopies = c.items.map((i) => ({ ...i }));
    const seen = new Set(c.seen);
    fold(c, [d2, d3, final, done]);
    expect(c.items).toEqual(items);
    expect(c.items.map((i) => ({ ...i }))).toEqual(itemCopies);
    expect(new Set(c.seen)).toEqual(seen);
    expect(c.activeRun).toBe('r1');
  });

  it('tracks lastSeq, the last run.finished and gives each item a stable key', () => {
    expect(foldAll(S, whole.slice(0, 7)).lastFinishedSeq).toBe(-1);
    const c = foldAll(S, whole);
    expect(c.lastSeq).toBe(7);
    expect(c.lastFinishedSeq).toBe(7);
    expect(c.items.map((i) => i.key)).toEqual([1, 2]);
    const more = fold(c, [ev(8, 'user.message', { text: 'x' })]);
    expect(more.items.map((i) => i.key)).toEqual([1, 2, 8]);
  });

  it('ignores events of another session entirely (same object back)', () => {
    const c: Conversation = foldAll(S, [user]);
    expect(fold(c, [ev(5, 'user.message', { text: 'x' }, undefined, 'other')])).toBe(c);
  });
});

describe('hasGap', () => {
  const c = foldAll(S, [created, user, started]);
  it.each([
    { name: 'next seq', events: [d1], want: false },
    { name: 'already seen', events: [user], want: false },
    { name: 'a seq is missing', events: [d2], want: true },
    { name: 'other session', events: [ev(9, 'x', {}, undefined, 'other')], want: false },
    { name: 'empty batch', events: [], want: false },
  ])('$name -> $want', ({ events, want }) => {
    expect(hasGap(c, events)).toBe(want);
  });
});

describe('the kernel starts a run before the step that takes up the words', () => {
  it('shows the user message above the reply it prompts', () => {
    const conv = foldAll(S, [
      ev(0, 'session.created', { title: 't' }),
      ev(1, 'input.received', { inputId: 'i1', intent: 'follow_up', text: 'hi', runId: 'r1' }),
      ev(2, 'run.started', { model: 'm', inputId: 'i1' }, 'r1'),
      ev(3, 'user.message', { text: 'hi', inputId: 'i1' }, 'r1'),
      ev(4, 'step.started', { step: 1 }, 'r1'),
      ev(5, 'assistant.delta', { content: 'hello' }, 'r1'),
    ]);
    expect(conv.items.map((i) => `${i.kind}:${i.text}`)).toEqual(['user:hi', 'assistant:hello']);
  });
});
