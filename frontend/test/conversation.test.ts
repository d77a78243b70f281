import { describe, expect, it } from 'vitest';
import {
  betweenSteps,
  emptyConversation,
  FALLBACK_ERROR,
  fold,
  foldAll,
  hasGap,
  REASON_FALLBACK,
  STOPPED_NOTICE,
  type Conversation,
  type Item,
} from '../src/lib/conversation';
import type { EventPayloads, EventTypeName, QEvent } from '../src/lib/protocol';
import { event, rawEvent } from './events';

const S = 'sess-1';
/** The sentence kernel/runtime's faultSentence gives a run the full disk ended. */
const DISK_FULL =
  "The disk is full: Quire could not save the rest of this request and stopped it. Free some space on the disk that holds Quire's data folder, then send your message again.";
const usage = { promptTokens: 12, outputTokens: 7, durationNs: 1_500_000_000 };

function ev<T extends EventTypeName>(seq: number, type: T, payload: Partial<EventPayloads[T]> = {}, runId?: string, session = S): QEvent {
  return event(session, seq, type, payload, runId);
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
    events: [created, rawEvent(S, 1, 'memory.written', { x: 1 }), ev(2, 'user.message', { text: 'a' }), ev(3, 'clock.tick', {}), ev(4, 'step.started', { step: 1 })],
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
    name: 'a tool-only step keeps its call (no text) and the next step opens a new reply',
    events: [
      user,
      started,
      ev(3, 'assistant.message', { step: 1, content: '', toolCalls: [{ id: 'c1', name: 'search_docs', arguments: '{}' }], usage }, 'r1'),
      ev(4, 'tool.result', { callId: 'c1', name: 'search_docs', status: 'success', content: 'ok' }, 'r1'),
      ev(5, 'assistant.delta', { content: 'Found it' }, 'r1'),
    ],
    keys: ['kind', 'text', 'streaming'],
    want: [
      { kind: 'user', text: 'hi there', streaming: false },
      { kind: 'assistant', text: '', streaming: false },
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
    events: [rawEvent(S, 0, 'session.created', null), rawEvent(S, 1, 'user.message', null)],
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
    { name: 'other session', events: [rawEvent('other', 9, 'x', {})], want: false },
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

// ---------------------------------------------------------------------------
// The agent loop's events: inputs, steps with tool calls, permission questions.

/** One line per thing on screen, so a table row says all it protects. */
function view(c: Conversation): string[] {
  const out = c.items.map((it) => {
    switch (it.kind) {
      case 'assistant': {
        const calls = (it.calls ?? []).map((x) => `${x.id} ${x.name} ${x.phase}${x.status ? '/' + x.status : ''}`);
        const flags = [it.streaming && 'streaming', it.stopped && 'stopped'].filter(Boolean).join(',');
        return `assistant:${it.text}${calls.length ? ` [${calls.join('; ')}]` : ''}${flags ? ` (${flags})` : ''}`;
      }
      case 'permission': {
        const p = it.permission!;
        const ids = p.calls.map((x) => x.id).join(',');
        const state = p.answer
          ? `${p.answer.byDefault ? 'default-' : ''}${p.answer.allowed ? 'allowed' : 'denied'}${p.answer.feedback ? ':' + p.answer.feedback : ''}`
          : p.closed
            ? 'closed'
            : 'open';
        return `permission:[${ids}] ${state}`;
      }
      case 'notice':
        return `${it.tone === 'warn' ? 'warn' : 'notice'}:${it.text}`;
      case 'user':
        return `user:${it.text}${it.unsent ? ' (unsent)' : ''}`;
      default:
        return `${it.kind}:${it.text}`;
    }
  });
  return out.concat(c.pending.map((p) => `pending:${p.intent}:${p.text}`));
}

const args1 = '{"path":"notes/garden.md"}';
const args2 = '{"query":"tomatoes","limit":5}';
const call1 = { id: 'c1', name: 'read_file', arguments: args1 };
const call2 = { id: 'c2', name: 'search_notes', arguments: args2 };

// A run of two steps: the first calls two tools, the second answers.
const T = {
  input: ev(1, 'input.received', { inputId: 'i1', intent: 'follow_up', text: 'check my notes', runId: 'r1' }),
  started: ev(2, 'run.started', { model: 'm', inputId: 'i1' }, 'r1'),
  user: ev(3, 'user.message', { text: 'check my notes', inputId: 'i1', intent: 'follow_up' }, 'r1'),
  step1: ev(4, 'step.started', { step: 1, inputIds: ['i1'] }, 'r1'),
  tools: ev(5, 'assistant.message', { step: 1, content: '', toolCalls: [call1, call2], doneReason: 'stop', model: 'm', usage }, 'r1'),
  start1: ev(6, 'tool.started', { callId: 'c1', name: 'read_file' }, 'r1'),
  start2: ev(7, 'tool.started', { callId: 'c2', name: 'search_notes' }, 'r1'),
  result2: ev(8, 'tool.result', { callId: 'c2', name: 'search_notes', status: 'empty', content: '', durationNs: 2e8 }, 'r1'),
  result1: ev(9, 'tool.result', { callId: 'c1', name: 'read_file', status: 'success', content: 'Tomatoes: water daily', durationNs: 3e8, attempts: 2 }, 'r1'),
  step2: ev(10, 'step.started', { step: 2 }, 'r1'),
  delta: ev(11, 'assistant.delta', { content: 'Water them' }, 'r1'),
  reply: ev(12, 'assistant.message', { step: 2, content: 'Water them daily.', doneReason: 'stop', model: 'm', usage }, 'r1'),
  done: ev(13, 'run.finished', { reason: 'completed' }, 'r1'),
};
const toolRun = [created, T.input, T.started, T.user, T.step1, T.tools, T.start1, T.start2, T.result2, T.result1, T.step2, T.delta, T.reply, T.done];

// A step that asks before writing.
const W = { id: 'w1', name: 'write_file', arguments: '{"path":"todo.md","content":"Buy seeds"}' };
const A = {
  tools: ev(5, 'assistant.message', { step: 1, content: 'I will write it.', toolCalls: [W], usage }, 'r1'),
  asked: ev(6, 'permission.requested', { calls: [W], deadlineNs: 1_900_000_000_000_000_000 }, 'r1'),
};
const asking = [created, T.input, T.started, T.user, T.step1, A.tools, A.asked];

interface AgentCase {
  name: string;
  events: QEvent[];
  want: string[];
  activeRun?: string | null;
}

const agentCases: AgentCase[] = [
  {
    name: 'input.received of an idle session is taken up at once: one user item, nothing pending',
    events: [created, T.input, T.started, T.user],
    want: ['user:check my notes', 'assistant: (streaming)'],
    activeRun: 'r1',
  },
  {
    name: 'input.received alone is a pending input',
    events: [created, T.input],
    want: ['pending:follow_up:check my notes'],
  },
  {
    name: 'a tool-calling step lists its calls in call order, waiting',
    events: [created, T.input, T.started, T.user, T.step1, T.tools],
    want: ['user:check my notes', 'assistant: [c1 read_file requested; c2 search_notes requested]'],
    activeRun: 'r1',
  },
  {
    name: 'tool.started marks its call running',
    events: [created, T.input, T.started, T.user, T.step1, T.tools, T.start1],
    want: ['user:check my notes', 'assistant: [c1 read_file running; c2 search_notes requested]'],
  },
  {
    name: 'results arriving in reverse call order keep the call order',
    events: [created, T.input, T.started, T.user, T.step1, T.tools, T.start1, T.start2, T.result2],
    want: ['user:check my notes', 'assistant: [c1 read_file running; c2 search_notes finished/empty]'],
  },
  {
    name: 'the whole run: calls under their step, then the reply of the next step',
    events: toolRun,
    want: [
      'user:check my notes',
      'assistant: [c1 read_file finished/success; c2 search_notes finished/empty]',
      'assistant:Water them daily.',
    ],
    activeRun: null,
  },
  {
    name: 'a step with text and calls keeps both in one item',
    events: [created, T.input, T.started, T.user, ev(4, 'assistant.delta', { content: 'Let me look.' }, 'r1'), ev(5, 'assistant.message', { content: 'Let me look.', toolCalls: [call1], usage }, 'r1')],
    want: ['user:check my notes', 'assistant:Let me look. [c1 read_file requested]'],
  },
  {
    name: 'a refused call (denied by the profile) shows its reason',
    events: [
      created, T.input, T.started, T.user, T.tools,
      ev(6, 'tool.refused', { callId: 'c1', name: 'read_file', status: 'denied', reason: 'Not allowed: read_file may not run under the "chat" profile.' }, 'r1'),
      T.start2,
    ],
    want: ['user:check my notes', 'assistant: [c1 read_file refused/denied; c2 search_notes running]'],
  },
  {
    name: 'unknown_completion after a crash, and the run ends interrupted with its sentence',
    events: [
      created, T.input, T.started, T.user, T.tools, T.start1,
      ev(7, 'tool.refused', { callId: 'c1', name: 'read_file', status: 'unknown_completion', reason: 'Quire stopped while this call was running; it may or may not have taken effect.' }, 'r1'),
      ev(8, 'tool.refused', { callId: 'c2', name: 'search_notes', status: 'cancelled', reason: 'Not run.' }, 'r1'),
      ev(9, 'run.finished', { reason: 'interrupted', error: 'Quire stopped before this request finished.' }, 'r1'),
    ],
    want: [
      'user:check my notes',
      'assistant: [c1 read_file refused/unknown_completion; c2 search_notes refused/cancelled]',
      'warn:Quire stopped before this request finished.',
    ],
    activeRun: null,
  },
  {
    // What Go logs when the disk fills while a call runs: the runtime
    // settles the calls (the running one may have taken effect) and ends
    // the run as error with the sentence saying what to do.
    name: 'the disk filled during a run: its calls are settled and the sentence says to free space',
    events: [
      created, T.input, T.started, T.user, T.tools, T.start1,
      ev(7, 'tool.refused', { callId: 'c1', name: 'read_file', status: 'unknown_completion', reason: 'Quire stopped while this call was running; it may or may not have taken effect.' }, 'r1'),
      ev(8, 'tool.refused', { callId: 'c2', name: 'search_notes', status: 'cancelled', reason: 'Not run.' }, 'r1'),
      ev(9, 'run.finished', { reason: 'error', error: DISK_FULL }, 'r1'),
    ],
    want: [
      'user:check my notes',
      'assistant: [c1 read_file refused/unknown_completion; c2 search_notes refused/cancelled]',
      `error:${DISK_FULL}`,
    ],
    activeRun: null,
  },
  {
    name: 'a run that ends with a call still running leaves it unknown, and waiting ones cancelled',
    events: [created, T.input, T.started, T.user, T.tools, T.start1, ev(7, 'run.finished', { reason: 'error', error: 'Boom.' }, 'r1')],
    want: [
      'user:check my notes',
      'assistant: [c1 read_file refused/unknown_completion; c2 search_notes refused/cancelled]',
      'error:Boom.',
    ],
  },
  {
    name: 'a result for a call the log never announced gets a card of its own',
    events: [created, T.input, T.started, T.user, ev(4, 'tool.result', { callId: 'x9', name: 'clock', status: 'success', content: '10:00' }, 'r1')],
    want: ['user:check my notes', 'assistant: (streaming)', 'assistant: [x9 clock finished/success]'],
  },
  {
    name: 'permission.requested: an open question, its call waiting for the user',
    events: asking,
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file asking]', 'permission:[w1] open'],
    activeRun: 'r1',
  },
  {
    name: "permission answered Don't allow with a reason: the record and the refusal with the reason",
    events: [
      ...asking,
      ev(7, 'permission.answered', { callIds: ['w1'], allowed: false, feedback: 'not today' }, 'r1'),
      ev(8, 'tool.refused', { callId: 'w1', name: 'write_file', status: 'denied', reason: "The user said no to this call. The user's reason: not today" }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file refused/denied]', 'permission:[w1] denied:not today'],
  },
  {
    name: 'permission answered Allow: the call runs and finishes',
    events: [
      ...asking,
      ev(7, 'permission.answered', { callIds: ['w1'], allowed: true }, 'r1'),
      ev(8, 'tool.started', { callId: 'w1', name: 'write_file' }, 'r1'),
      ev(9, 'tool.result', { callId: 'w1', name: 'write_file', status: 'success', content: 'Wrote 1 line.' }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file finished/success]', 'permission:[w1] allowed'],
  },
  {
    name: 'no answer in time: the default answer is recorded',
    events: [
      ...asking,
      ev(7, 'permission.answered', { callIds: ['w1'], allowed: false, byDefault: true }, 'r1'),
      ev(8, 'tool.refused', { callId: 'w1', name: 'write_file', status: 'denied', reason: 'Nobody answered in time.' }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file refused/denied]', 'permission:[w1] default-denied'],
  },
  {
    name: 'the deadline answers on its clock (no permission.answered, only the refusal): "No answer in time"',
    events: [
      ...asking,
      ev(7, 'tool.refused', { callId: 'w1', name: 'write_file', status: 'denied', reason: 'Nobody answered the request to run this call in time, so it was not run.' }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file refused/denied]', 'permission:[w1] default-denied'],
  },
  {
    name: 'an answer about other calls changes nothing',
    events: [...asking, ev(7, 'permission.answered', { callIds: ['zz'], allowed: true }, 'r1')],
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file asking]', 'permission:[w1] open'],
  },
  {
    name: 'Stop while asking: the question closes, the call is cancelled, the run says Stopped',
    events: [
      ...asking,
      ev(7, 'tool.refused', { callId: 'w1', name: 'write_file', status: 'cancelled', reason: 'Not run: the request was stopped before the user answered.' }, 'r1'),
      ev(8, 'run.finished', { reason: 'cancelled', error: 'cancelled by the user' }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:I will write it. [w1 write_file refused/cancelled]', 'permission:[w1] closed', `notice:${STOPPED_NOTICE}`],
    activeRun: null,
  },
  {
    name: 'a steer sent during a tool step is pending, then lands before the next reply',
    events: [
      created, T.input, T.started, T.user, T.step1, T.tools, T.start1, T.start2,
      ev(8, 'input.received', { inputId: 'i2', intent: 'steer', text: 'only this week', runId: 'r9' }),
      ev(9, 'tool.result', { callId: 'c2', name: 'search_notes', status: 'success', content: 'x' }, 'r1'),
    ],
    want: [
      'user:check my notes',
      'assistant: [c1 read_file running; c2 search_notes finished/success]',
      'pending:steer:only this week',
    ],
  },
  {
    name: 'the steer taken up: a user item in its place, nothing pending',
    events: [
      created, T.input, T.started, T.user, T.step1, T.tools, T.start1, T.start2,
      ev(8, 'input.received', { inputId: 'i2', intent: 'steer', text: 'only this week', runId: 'r9' }),
      ev(9, 'tool.result', { callId: 'c2', name: 'search_notes', status: 'success', content: 'x' }, 'r1'),
      ev(10, 'tool.result', { callId: 'c1', name: 'read_file', status: 'success', content: 'y' }, 'r1'),
      ev(11, 'user.message', { text: 'only this week', inputId: 'i2', intent: 'steer' }, 'r1'),
      ev(12, 'step.started', { step: 2, inputIds: ['i2'] }, 'r1'),
      ev(13, 'assistant.delta', { content: 'This week: water.' }, 'r1'),
    ],
    want: [
      'user:check my notes',
      'assistant: [c1 read_file finished/success; c2 search_notes finished/success]',
      'user:only this week',
      'assistant:This week: water. (streaming)',
    ],
  },
  {
    name: 'a queued follow-up waits through the run, then opens its own',
    events: [
      created, T.input, T.started, T.user, ev(4, 'assistant.delta', { content: 'One' }, 'r1'),
      ev(5, 'input.received', { inputId: 'i2', intent: 'follow_up', text: 'and then?', runId: 'r2' }),
      ev(6, 'assistant.message', { content: 'One.', usage }, 'r1'),
      ev(7, 'run.finished', { reason: 'completed' }, 'r1'),
      ev(8, 'run.started', { model: 'm', inputId: 'i2' }, 'r2'),
      ev(9, 'user.message', { text: 'and then?', inputId: 'i2', intent: 'follow_up' }, 'r2'),
      ev(10, 'assistant.delta', { content: 'Two' }, 'r2'),
    ],
    want: ['user:check my notes', 'assistant:One.', 'user:and then?', 'assistant:Two (streaming)'],
    activeRun: 'r2',
  },
  {
    name: 'the queued follow-up is still pending while the first run goes',
    events: [
      created, T.input, T.started, T.user, ev(4, 'assistant.delta', { content: 'One' }, 'r1'),
      ev(5, 'input.received', { inputId: 'i2', intent: 'follow_up', text: 'and then?', runId: 'r2' }),
      ev(6, 'assistant.delta', { content: ' more' }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:One more (streaming)', 'pending:follow_up:and then?'],
  },
  {
    name: 'a run that never takes up its input (too long): shown unsent, with the sentence',
    events: [
      created,
      ev(1, 'input.received', { inputId: 'i1', intent: 'follow_up', text: 'a very long text', runId: 'r1' }),
      ev(2, 'run.started', { model: 'm', inputId: 'i1' }, 'r1'),
      ev(3, 'run.finished', { reason: 'denied', error: 'Your message is too long for the model to read.' }, 'r1'),
    ],
    want: ['user:a very long text (unsent)', 'warn:Your message is too long for the model to read.'],
    activeRun: null,
  },
  ...(
    [
      ['max-steps', 'Stopped after 8 steps, the most one request may take. Ask again to continue.'],
      ['max-tool-calls', 'Stopped: the assistant asked for more than 20 tool calls for one request.'],
      ['budget', 'Stopped: the next step would pass this request\'s budget of 8000 tokens.'],
      ['loop', 'Stopped: the assistant made the same call with the same result 3 times in a row.'],
    ] as const
  ).map(([reason, sentence]) => ({
    name: `run.finished ${reason} keeps the reply and adds its sentence as a notice`,
    events: [created, T.input, T.started, T.user, T.tools, ev(6, 'run.finished', { reason, error: sentence }, 'r1')],
    want: ['user:check my notes', 'assistant: [c1 read_file refused/cancelled; c2 search_notes refused/cancelled]', `warn:${sentence}`],
    activeRun: null,
  })),
  ...(['max-steps', 'budget', 'loop', 'interrupted', 'denied', 'nothing-to-do'] as const).map((reason) => ({
    name: `run.finished ${reason} without a sentence says something anyway`,
    events: [created, T.input, T.started, T.user, ev(4, 'run.finished', { reason }, 'r1')],
    want: ['user:check my notes', `warn:${REASON_FALLBACK[reason]}`],
  })),
  {
    name: 'a reply cut off by Stop and logged whole (interrupted) is marked stopped, with no extra notice',
    events: [
      created, T.input, T.started, T.user, ev(4, 'assistant.delta', { content: 'Half' }, 'r1'),
      ev(5, 'assistant.message', { content: 'Half', interrupted: true, usage }, 'r1'),
      ev(6, 'run.finished', { reason: 'cancelled' }, 'r1'),
    ],
    want: ['user:check my notes', 'assistant:Half (stopped)'],
  },
  {
    name: 'duplicate seqs are ignored (a result and an input delivered twice)',
    events: [created, T.input, T.input, T.started, T.user, T.tools, T.start1, T.start2, T.result2, T.result2, T.result1, T.result1],
    want: ['user:check my notes', 'assistant: [c1 read_file finished/success; c2 search_notes finished/empty]'],
  },
  {
    name: 'the same input under another seq stays one pending input',
    events: [created, T.input, ev(2, 'input.received', { inputId: 'i1', intent: 'follow_up', text: 'check my notes', runId: 'r1' })],
    want: ['pending:follow_up:check my notes'],
  },
];

describe('fold: the agent loop', () => {
  it.each(agentCases)('$name', (c) => {
    const conv = foldAll(S, c.events);
    expect(view(conv)).toEqual(c.want);
    if (c.activeRun !== undefined) expect(conv.activeRun).toBe(c.activeRun);
  });

  it('a result keeps its content, data, duration and attempts', () => {
    const conv = foldAll(S, toolRun);
    const calls = conv.items[1].calls!;
    expect(calls[0]).toEqual({
      id: 'c1',
      name: 'read_file',
      arguments: args1,
      phase: 'finished',
      status: 'success',
      content: 'Tomatoes: water daily',
      data: undefined,
      durationNs: 3e8,
      attempts: 2,
    });
    expect(conv.items[1].step).toBe(1);
    expect(conv.items[2].step).toBe(2);
  });

  it('a refusal keeps its reason as the content', () => {
    const conv = foldAll(S, [
      ...asking,
      ev(7, 'permission.answered', { callIds: ['w1'], allowed: false, feedback: 'not today' }, 'r1'),
      ev(8, 'tool.refused', { callId: 'w1', name: 'write_file', status: 'denied', reason: "The user said no to this call. The user's reason: not today" }, 'r1'),
    ]);
    expect(conv.items[1].calls![0].content).toBe("The user said no to this call. The user's reason: not today");
    expect(conv.items[2].permission).toMatchObject({ calls: [W], deadlineNs: 1_900_000_000_000_000_000, answer: { allowed: false, feedback: 'not today' } });
  });

  const rich = [
    ...toolRun.slice(0, 8),
    ev(8, 'input.received', { inputId: 'i2', intent: 'steer', text: 'only this week', runId: 'r9' }),
    ev(9, 'input.received', { inputId: 'i3', intent: 'follow_up', text: 'next', runId: 'r2' }),
    ev(10, 'tool.result', { callId: 'c2', name: 'search_notes', status: 'success', content: 'x' }, 'r1'),
    ev(11, 'tool.result', { callId: 'c1', name: 'read_file', status: 'failure', content: 'no such file' }, 'r1'),
    ev(12, 'user.message', { text: 'only this week', inputId: 'i2', intent: 'steer' }, 'r1'),
    ev(13, 'assistant.message', { step: 2, content: 'Writing.', toolCalls: [W], usage }, 'r1'),
    ev(14, 'permission.requested', { calls: [W], deadlineNs: 0 }, 'r1'),
    ev(15, 'permission.answered', { callIds: ['w1'], allowed: true }, 'r1'),
    ev(16, 'tool.started', { callId: 'w1', name: 'write_file' }, 'r1'),
    ev(17, 'tool.result', { callId: 'w1', name: 'write_file', status: 'success', content: 'ok' }, 'r1'),
    ev(18, 'assistant.message', { step: 3, content: 'Done.', usage }, 'r1'),
    ev(19, 'run.finished', { reason: 'completed' }, 'r1'),
    ev(20, 'run.started', { model: 'm', inputId: 'i3' }, 'r2'),
    ev(21, 'user.message', { text: 'next', inputId: 'i3', intent: 'follow_up' }, 'r2'),
    ev(22, 'assistant.delta', { content: 'Next!' }, 'r2'),
  ];

  it('a rich log folds to the picture a person expects', () => {
    expect(view(foldAll(S, rich))).toEqual([
      'user:check my notes',
      'assistant: [c1 read_file finished/failure; c2 search_notes finished/success]',
      'user:only this week',
      'assistant:Writing. [w1 write_file finished/success]',
      'permission:[w1] allowed',
      'assistant:Done.',
      'user:next',
      'assistant:Next! (streaming)',
    ]);
  });

  it.each(rich.map((_, i) => i))('the rich log split at %i folds the same as in one go', (i) => {
    const once = foldAll(S, rich);
    const twice = fold(foldAll(S, rich.slice(0, i)), rich.slice(i));
    expect(twice.items).toEqual(once.items);
    expect(twice.pending).toEqual(once.pending);
  });

  it('the rich log: the result depends only on the set of events, not batches, order or duplicates', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const want = foldAll(S, rich);
    for (let round = 0; round < 200; round++) {
      const shuffled = rich.slice().sort(() => rnd() - 0.5);
      const withDupes = shuffled.concat(shuffled.filter(() => rnd() < 0.3));
      let c = emptyConversation(S);
      for (let i = 0; i < withDupes.length; ) {
        const n = 1 + Math.floor(rnd() * 4);
        c = fold(c, withDupes.slice(i, i + n));
        i += n;
      }
      expect(c.items).toEqual(want.items);
      expect(c.pending).toEqual(want.pending);
      expect(c.activeRun).toBe('r2');
    }
  });

  it('never mutates its input, calls and permissions included', () => {
    const c = foldAll(S, asking);
    const before = JSON.stringify({ items: c.items, pending: c.pending });
    fold(c, [
      ev(7, 'permission.answered', { callIds: ['w1'], allowed: true }, 'r1'),
      ev(8, 'tool.started', { callId: 'w1', name: 'write_file' }, 'r1'),
      ev(9, 'input.received', { inputId: 'i5', intent: 'steer', text: 's', runId: 'r5' }),
    ]);
    expect(JSON.stringify({ items: c.items, pending: c.pending })).toBe(before);
  });
});

describe('betweenSteps', () => {
  it.each([
    { name: 'no run', events: [created, user], want: false },
    { name: 'a reply streaming', events: [created, T.input, T.started, T.user], want: false },
    { name: 'a call running', events: [created, T.input, T.started, T.user, T.tools, T.start1, T.start2], want: false },
    { name: 'a question open', events: asking, want: false },
    { name: 'all results in, the next step not streaming yet', events: toolRun.slice(0, 10), want: true },
    { name: 'the run finished', events: toolRun, want: false },
  ])('$name -> $want', ({ events, want }) => {
    expect(betweenSteps(foldAll(S, events))).toBe(want);
  });
});
