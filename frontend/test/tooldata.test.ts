// The cards of tools with data of their own (src/lib/toolcard.ts): the plan
// (update_todos), "The assistant is unsure" (report_state) and a note tool's
// change with its Undo message; and what the conversation derives from them
// (the latest plan, the changes that stand undone), live and replayed alike.
import { describe, expect, it } from 'vitest';
import { emptyConversation, fold, foldAll, type CallState } from '../src/lib/conversation';
import type { EventPayloads, EventTypeName, ToolResultStatus, NoteChange, QEvent } from '../src/lib/protocol';
import { event } from './events';
import {
  asChange,
  asPlan,
  asReport,
  cardDetail,
  changeSummary,
  latestPlan,
  planOf,
  progressLabel,
  reportOf,
  toolCard,
  undoneChanges,
  UNSURE_TITLE,
} from '../src/lib/toolcard';

const call = (over: Partial<CallState> = {}): CallState => ({ id: 'c1', name: 'tool', arguments: '', phase: 'requested', ...over });
const ev = <T extends EventTypeName>(seq: number, type: T, payload: Partial<EventPayloads[T]>, runId?: string): QEvent =>
  event('s', seq, type, payload, runId);

const PLAN = { items: [{ text: 'Read the inbox', done: true }, { text: 'Sort the notes', done: false }, { text: 'Link them', done: false }] };
const MOVE: NoteChange = { id: 'chg_01', tool: 'move_note', kind: 'move', path: 'projects/a.md', from: 'inbox/a.md', before: null, after: null };

describe('asPlan / asReport / asChange read tool data defensively', () => {
  it('a plan: items with text; done defaults to false; blank or broken items are left out', () => {
    expect(asPlan(PLAN)).toEqual(PLAN);
    expect(asPlan({ items: [{ text: 'a' }, { text: '  ' }, null, { done: true }, { text: 'b', done: 'yes' }] })).toEqual({
      items: [
        { text: 'a', done: false },
        { text: 'b', done: false },
      ],
    });
    expect(asPlan({ items: [] })).toEqual({ items: [] });
    for (const v of [null, undefined, 'x', [], {}, { items: null }, { items: 'a' }]) expect(asPlan(v)).toBeNull();
  });

  it('a report needs a state; plan and confusion only when said', () => {
    expect(asReport({ state: 'lost', plan: 'ask', confusion: 'two files' })).toEqual({ state: 'lost', plan: 'ask', confusion: 'two files' });
    expect(asReport({ state: 'lost', plan: '', confusion: '  ' })).toEqual({ state: 'lost' });
    for (const v of [null, {}, { state: '' }, { state: 3 }, { plan: 'x' }]) expect(asReport(v)).toBeNull();
  });

  it("a change as Go encodes it (before/after null), and not a read's or a failure's data", () => {
    expect(asChange({ ...MOVE, sha256: 'abc', requestId: 'r1' })).toEqual(MOVE);
    expect(asChange({ id: 'chg_2', tool: 'edit_note', kind: 'write', path: 'a.md', before: 'x', after: 'y' })).toMatchObject({ before: 'x', after: 'y' });
    expect(asChange({ id: 'chg_3', tool: 'undo', kind: 'rmdir', path: 'p', undoes: 'chg_2' })).toMatchObject({ undoes: 'chg_2' });
    for (const v of [
      null,
      { error: 'not_found' },
      { items: [] },
      { id: '', kind: 'write', path: 'a.md' },
      { id: 'x', kind: 'write', path: '' },
      { id: 'x', kind: 'delete', path: 'a.md' },
    ]) {
      expect(asChange(v)).toBeNull();
    }
  });
});

describe('changeSummary: the change said plainly', () => {
  const w = (tool: string, before: string | null, after: string | null, path = 'plan.md'): NoteChange => ({ id: 'x', tool, kind: 'write', path, before, after });
  it.each([
    { c: MOVE, want: 'Moved inbox/a.md → projects/a.md' },
    { c: { ...MOVE, from: undefined }, want: 'Moved to projects/a.md' },
    { c: w('create_note', null, '# Ideas', 'ideas.md'), want: 'Created ideas.md' },
    { c: w('edit_note', 'a', 'b'), want: 'Edited plan.md' },
    { c: w('append_note', 'a', 'a\nb'), want: 'Added to plan.md' },
    { c: w('set_tags', 'a', 'b'), want: 'Set the tags of plan.md' },
    { c: w('link_notes', 'a', 'b'), want: 'Added a link to plan.md' },
    { c: w('some_new_tool', 'a', 'b'), want: 'Edited plan.md' },
    { c: w('undo', 'b', 'a'), want: 'Put back the earlier text of plan.md' },
    { c: w('undo', '# Ideas', null, 'ideas.md'), want: 'Removed ideas.md' },
    { c: w('undo', null, '# Ideas', 'ideas.md'), want: 'Put back ideas.md' },
    { c: { id: 'x', tool: 'make_folder', kind: 'mkdir', path: 'projects' } as NoteChange, want: 'Made the folder projects' },
    { c: { id: 'x', tool: 'undo', kind: 'rmdir', path: 'projects' } as NoteChange, want: 'Removed the folder projects' },
  ])('$want', ({ c, want }) => {
    expect(changeSummary(c)).toBe(want);
  });
});

describe('progressLabel', () => {
  it.each([
    [2, 5, '2 of 5 done'],
    [0, 3, '0 of 3 done'],
    [3, 3, '3 of 3 done'],
    [0, 0, 'No items'],
  ])('%i of %i -> %s', (done, total, want) => {
    expect(progressLabel(done, total)).toBe(want);
  });
});

describe('planOf / reportOf: data first, the arguments until it comes', () => {
  const args = JSON.stringify(PLAN);
  it.each([
    { name: 'finished with data', c: call({ name: 'update_todos', phase: 'finished', status: 'success', data: PLAN }), want: PLAN },
    { name: 'running: the arguments', c: call({ name: 'update_todos', arguments: args, phase: 'running' }), want: PLAN },
    { name: 'waiting: the arguments', c: call({ name: 'update_todos', arguments: args }), want: PLAN },
    { name: 'finished, no data (an older log): the arguments', c: call({ name: 'update_todos', arguments: args, phase: 'finished', status: 'success' }), want: PLAN },
    { name: 'finished with other data', c: call({ name: 'update_todos', arguments: args, phase: 'finished', status: 'success', data: { x: 1 } }), want: null },
    { name: 'failed', c: call({ name: 'update_todos', arguments: args, phase: 'finished', status: 'failure', data: PLAN }), want: null },
    { name: 'refused', c: call({ name: 'update_todos', arguments: args, phase: 'refused', status: 'denied' }), want: null },
    { name: 'arguments not JSON', c: call({ name: 'update_todos', arguments: '{items: [', phase: 'running' }), want: null },
    { name: 'another tool', c: call({ name: 'read_note', phase: 'finished', status: 'success', data: PLAN }), want: null },
  ])('$name', ({ c, want }) => {
    expect(planOf(c)).toEqual(want);
  });

  it('report_state the same way', () => {
    const r = { state: 'lost', confusion: 'two plan.md' };
    expect(reportOf(call({ name: 'report_state', phase: 'finished', status: 'success', data: r }))).toEqual(r);
    expect(reportOf(call({ name: 'report_state', arguments: JSON.stringify(r), phase: 'running' }))).toEqual(r);
    expect(reportOf(call({ name: 'report_state', arguments: JSON.stringify(r), phase: 'refused', status: 'cancelled' }))).toBeNull();
    expect(reportOf(call({ name: 'update_todos', phase: 'finished', status: 'success', data: r }))).toBeNull();
  });
});

describe('cardDetail and toolCard', () => {
  it('update_todos is a checklist: "1 of 3 done"', () => {
    const v = toolCard(call({ name: 'update_todos', phase: 'finished', status: 'success', content: 'Plan saved: 3 items, 2 still open.', data: PLAN }));
    expect(v.detail).toEqual({ kind: 'checklist', title: 'Plan', items: PLAN.items, done: 1, total: 3, progress: '1 of 3 done' });
    expect(v.chip).toBe('done');
  });

  it('report_state is "The assistant is unsure" with its fields in order, the empty ones left out', () => {
    const d = cardDetail(call({ name: 'report_state', phase: 'finished', status: 'success', data: { state: 'S', confusion: 'C' } }));
    expect(d).toEqual({
      kind: 'unsure',
      title: UNSURE_TITLE,
      fields: [
        { key: 'state', label: 'Where it is', text: 'S' },
        { key: 'confusion', label: 'What does not add up', text: 'C' },
      ],
    });
    expect(UNSURE_TITLE).toBe('The assistant is unsure');
  });

  it('a note write is its change, with the message Undo sends', () => {
    const d = cardDetail(call({ name: 'move_note', phase: 'finished', status: 'success', data: MOVE }));
    expect(d).toEqual({
      kind: 'change',
      changeId: 'chg_01',
      summary: 'Moved inbox/a.md → projects/a.md',
      note: '',
      undone: false,
      undoable: true,
    });
  });

  it('an undone change offers no Undo; an undo says what it reverted', () => {
    const c = call({ name: 'move_note', phase: 'finished', status: 'success', data: MOVE });
    expect(cardDetail(c, { undone: new Set(['chg_01']) })).toMatchObject({ undone: true, undoable: false });
    const u = cardDetail(
      call({ name: 'undo', phase: 'finished', status: 'success', data: { id: 'chg_02', tool: 'undo', kind: 'move', path: 'inbox/a.md', from: 'projects/a.md', undoes: 'chg_01' } }),
    );
    expect(u).toMatchObject({ summary: 'Moved projects/a.md → inbox/a.md', note: 'Undid change chg_01', undoable: true });
  });

  it('no change card while running, after a failure, or for a read', () => {
    expect(cardDetail(call({ name: 'edit_note', phase: 'running' }))).toBeNull();
    expect(cardDetail(call({ name: 'edit_note', phase: 'finished', status: 'failure', data: { error: 'not_found' } }))).toBeNull();
    expect(cardDetail(call({ name: 'read_note', phase: 'finished', status: 'success', data: { path: 'a.md', text: 'x' } }))).toBeNull();
    expect(toolCard(call({ name: 'read_file', phase: 'finished', status: 'success', content: 'x' })).detail).toBeNull();
  });
});

describe('from the conversation: the latest plan and the changes undone', () => {
  const result = (seq: number, callId: string, name: string, data: unknown, status: ToolResultStatus = 'success') =>
    ev(seq, 'tool.result', { callId, name, status, content: '…', data }, 'r');
  const step = (seq: number, calls: { id: string; name: string; arguments?: string }[], runId = 'r') =>
    ev(seq, 'assistant.message', { content: '', toolCalls: calls.map((c) => ({ arguments: '{}', ...c })) }, runId);

  it('the latest plan is the last update_todos with one; a failed update keeps the one before', () => {
    const plan2 = { items: PLAN.items.map((i) => ({ ...i, done: true })) };
    const log = [
      ev(0, 'session.created', { title: 't' }),
      ev(1, 'run.started', { model: 'm' }, 'r'),
      step(2, [{ id: 'p1', name: 'update_todos' }]),
      result(3, 'p1', 'update_todos', PLAN),
      step(4, [{ id: 'n1', name: 'read_note' }]),
      result(5, 'n1', 'read_note', { path: 'a.md' }),
    ];
    expect(latestPlan(foldAll('s', log))?.progress).toBe('1 of 3 done');
    const later = [...log, step(6, [{ id: 'p2', name: 'update_todos' }]), result(7, 'p2', 'update_todos', plan2)];
    expect(latestPlan(foldAll('s', later))?.progress).toBe('3 of 3 done');
    const failed = [...log, step(6, [{ id: 'p2', name: 'update_todos' }]), result(7, 'p2', 'update_todos', { error: 'x' }, 'failure')];
    expect(latestPlan(foldAll('s', failed))?.progress).toBe('1 of 3 done');
    expect(latestPlan(foldAll('s', log.slice(0, 2)))).toBeNull();
    expect(latestPlan(null)).toBeNull();
  });

  it('while update_todos runs, its arguments are already the plan', () => {
    const log = [
      ev(0, 'session.created', { title: 't' }),
      ev(1, 'run.started', { model: 'm' }, 'r'),
      step(2, [{ id: 'p1', name: 'update_todos', arguments: JSON.stringify(PLAN) }]),
      ev(3, 'tool.started', { callId: 'p1', name: 'update_todos' }, 'r'),
    ];
    expect(latestPlan(foldAll('s', log))?.items).toEqual(PLAN.items);
  });

  it('a change stands undone until its undo is undone in turn', () => {
    const undo1 = { id: 'chg_02', tool: 'undo', kind: 'move', path: 'inbox/a.md', from: 'projects/a.md', undoes: 'chg_01' };
    const undo2 = { id: 'chg_03', tool: 'undo', kind: 'move', path: 'projects/a.md', from: 'inbox/a.md', undoes: 'chg_02' };
    const log = [
      ev(0, 'session.created', { title: 't' }),
      ev(1, 'run.started', { model: 'm' }, 'r'),
      step(2, [{ id: 'm', name: 'move_note' }]),
      result(3, 'm', 'move_note', MOVE),
      step(4, [{ id: 'u1', name: 'undo' }]),
    ];
    expect([...undoneChanges(foldAll('s', log))]).toEqual([]);
    const undone = [...log, result(5, 'u1', 'undo', undo1)];
    expect([...undoneChanges(foldAll('s', undone))]).toEqual(['chg_01']);
    const failedUndo = [...log, result(5, 'u1', 'undo', { error: 'changed_since' }, 'failure')];
    expect([...undoneChanges(foldAll('s', failedUndo))]).toEqual([]);
    const redone = [...undone, step(6, [{ id: 'u2', name: 'undo' }]), result(7, 'u2', 'undo', undo2)];
    expect([...undoneChanges(foldAll('s', redone))]).toEqual(['chg_02']);
    expect(undoneChanges(null).size).toBe(0);
  });

  it('live and replayed give the same cards', () => {
    const log = [
      ev(0, 'session.created', { title: 't' }),
      ev(1, 'run.started', { model: 'm' }, 'r'),
      step(2, [
        { id: 'p', name: 'update_todos', arguments: JSON.stringify(PLAN) },
        { id: 'q', name: 'report_state', arguments: '{"state":"S"}' },
        { id: 'm', name: 'move_note' },
      ]),
      result(3, 'm', 'move_note', MOVE),
      result(4, 'q', 'report_state', { state: 'S' }),
      result(5, 'p', 'update_todos', PLAN),
    ];
    let live = emptyConversation('s');
    for (const e of log) live = fold(live, [e]);
    const replayed = foldAll('s', log);
    const cards = (c: typeof live) => c.items.flatMap((i) => i.calls ?? []).map((x) => toolCard(x, { undone: undoneChanges(c) }));
    expect(cards(live)).toEqual(cards(replayed));
    expect(cards(live).map((c) => c.detail?.kind)).toEqual(['checklist', 'unsure', 'change']);
  });
});
