// The golden log: the public events of a real conversation, written by a Go
// test (buildkit/contract TestGoldenLogIsFresh: the runtime over SQLite, the
// Ollama client against the fake server, the real todo tools) exactly as a
// host sends them to the page. A Go payload that changes changes this log
// (`make generate` rewrites it), and this fold sees what the page would see:
// a renamed field shows up here as a blank or a lost card.
import { describe, expect, it } from 'vitest';
import { fold as foldEvents, foldAll, type Conversation } from '../src/lib/conversation';
import { usageLabel } from '../src/lib/format';
import type { QEvent } from '../src/lib/protocol';
import { latestPlan, permissionView, toolCard } from '../src/lib/toolcard';
import golden from './golden/conversation.json';

const log = golden as unknown as QEvent[];

function fold(): Conversation {
  return foldAll(log[0].session, log);
}

describe('the golden log of a real conversation', () => {
  it('folds into what the page shows, item by item', () => {
    const c = fold();
    expect(c.title).toBe('My week');
    expect(c.activeRun).toBeNull();
    expect(c.pending).toEqual([]);
    expect(c.lastFinishedSeq).toBe(log.filter((e) => e.type === 'run.finished').at(-1)!.seq);
    expect(
      c.items.map((it) => ({
        kind: it.kind,
        text: it.text,
        thinking: it.thinking,
        step: it.step,
        streaming: it.streaming,
        calls: it.calls?.map((k) => [k.id, k.name, k.phase, k.status]),
      })),
    ).toEqual([
      { kind: 'user', text: 'Plan my week and file a note.', streaming: false },
      {
        kind: 'assistant',
        text: 'Here is a plan.',
        thinking: 'A plan first.',
        step: 1,
        streaming: false,
        calls: [['call_plan', 'update_todos', 'finished', 'success']],
      },
      { kind: 'assistant', text: '', step: 2, streaming: false, calls: [['call_note', 'create_note', 'refused', 'denied']] },
      { kind: 'permission', text: '', streaming: false },
      { kind: 'assistant', text: 'The plan is ready; the note was not filed.', step: 3, streaming: false },
    ]);
  });

  it('shows the tool cards and the question from the payloads Go wrote', () => {
    const c = fold();
    const [, first, second, question, last] = c.items;
    const plan = first.calls![0];
    expect(plan.content).toBe('Plan saved: 2 items, 1 still open.');
    expect(plan.attempts).toBe(1);
    expect(plan.durationNs).toBeGreaterThan(0);
    expect(toolCard(plan).summary).toBe('[2 items]'); // from the arguments' JSON text
    expect(latestPlan(c)).toMatchObject({
      items: [
        { text: 'Draft the week', done: true },
        { text: 'File the note', done: false },
      ],
      done: 1,
      total: 2,
    });

    const note = second.calls![0];
    expect(note.content).toMatch(/not run/);
    expect(JSON.parse(note.arguments)).toEqual({ path: 'week.md', text: 'Monday: plan.' });

    const view = permissionView(question.permission!);
    expect(view.calls.map((k) => [k.id, k.name])).toEqual([['call_note', 'create_note']]);
    expect(question.permission!.answer).toEqual({ allowed: false, byDefault: true });
    expect(view.open).toBe(false);

    expect(last.usage?.promptTokens).toBeGreaterThan(0);
    expect(usageLabel(last.usage)).toMatch(/tokens/);
  });
});

describe('the page keeps no streamed piece a landed reply made moot', () => {
  const deltas = (c: Conversation) => c.events.filter((e) => e.type === 'assistant.delta').map((e) => e.seq);
  const shown = (c: Conversation) => ({ title: c.title, items: c.items, pending: c.pending, activeRun: c.activeRun, lastSeq: c.lastSeq, lastFinishedSeq: c.lastFinishedSeq });

  it('drops them, in one batch or one event at a time, and folds the same', () => {
    const whole = fold();
    let live = foldAll(log[0].session, []);
    for (const e of log) live = fold1(live, e);
    // 5-7 are the first reply's pieces (its item opened at run.started, seq 2);
    // 17 opened the last reply's item: its key, so it stays.
    for (const c of [whole, live]) {
      expect(deltas(c)).toEqual([17]);
      expect(c.seen.size).toBe(log.length);
    }
    expect(shown(live)).toEqual(shown(whole));
    expect(whole.items.at(-1)!.key).toBe(17);
  });

  it('keeps the pieces of a reply still streaming', () => {
    const upTo7 = foldAll(log[0].session, log.filter((e) => e.seq <= 7));
    expect(deltas(upTo7)).toEqual([5, 6, 7]);
    expect(upTo7.items.at(-1)!.text).toBe('Here is a plan.');
  });

  it('refolds the same when an older event arrives late, and ignores a dropped piece sent again', () => {
    const late = log.find((e) => e.seq === 3)!; // the user's message
    const without = foldAll(log[0].session, log.filter((e) => e !== late));
    expect(deltas(without)).toEqual([17]);
    const refolded = fold1(without, late);
    expect(shown(refolded)).toEqual(shown(fold()));
    const again = log.find((e) => e.seq === 6)!;
    expect(fold1(refolded, again)).toBe(refolded);
  });
});

function fold1(c: Conversation, e: QEvent): Conversation {
  return foldEvents(c, [e]);
}
