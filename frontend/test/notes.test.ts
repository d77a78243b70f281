// @vitest-environment jsdom
// The Notes panel's undo: the question lists the exact reverse of every
// change it undoes, in order; what was undone and what not is said; and a
// failure or a refusal gives the Undo button back (never stuck on
// "Undoing…"). The Changes list is mounted in jsdom over a fake host: the
// host's own undo is Go's (assembly's TestUndoFromTheChangesList, and
// the browser case against the real backend).
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ChangesList from '../src/components/ChangesList.svelte';
import { changeEntries, movedNotes, NotesStore, outcomeText, undoQuestion } from '../src/lib/notes.svelte';
import type { AppliedBatch, Batch, BatchChange, ChangeList, ChangeRecord, UndoOutcome } from '../src/lib/protocol';
import { changeList, type NotesTransport } from '../src/lib/transport/notes';

function change(id: string, over: Partial<ChangeRecord> = {}): ChangeRecord {
  return {
    id,
    tool: 'append_note',
    kind: 'write',
    path: `${id}.md`,
    session: 's1',
    title: 'Garden',
    seq: 4,
    time: '2026-12-01T09:00:00Z',
    diff: `  # ${id}\n+ - buy seeds`,
    state: 'applied',
    reverse: `Undo the change ${id} (append_note): give ${id}.md back the text it had before (- is discarded, + is restored):\n  # ${id}\n- - buy seeds`,
    ...over,
  };
}

function host(undo: (id: string) => Promise<UndoOutcome>) {
  const list = [change('chg_b'), change('chg_a')];
  return {
    notesTree: vi.fn(async () => ({ root: '/notes', path: '.', entries: [] })),
    noteText: vi.fn(),
    noteChanges: vi.fn(async () => ({ changes: list, undoAll: { s1: ['chg_b', 'chg_a'] } })),
    undoChange: vi.fn(undo),
    undoConversation: vi.fn(async (_s: string, ids: string[]) => ({ undone: [ids[0]], refused: { id: ids[1], path: 'chg_a.md', reason: 'chg_a.md changed after Quire wrote it.', changedSince: true } })),
    noteVersions: vi.fn(async (id: string) => ({ id, path: 'chg_a.md', quire: 'mine', now: 'theirs', limit: 262144 })),
    previewWrite: vi.fn(),
    noteLinks: vi.fn(),
    confirmsUndoInDialog: false as boolean,
  } satisfies Record<keyof NotesTransport, unknown>;
}

describe('a change list from a host', () => {
  it.each([
    ['no batches (an older Quire)', { changes: [] }, []],
    ['a batch with no standing change (null from Go)', { changes: [], batches: [{ batch: { id: 'b1' }, changes: null }] }, [{ batch: { id: 'b1' }, changes: [] }]],
    ['a batch with its moves', { changes: [], batches: [{ batch: { id: 'b2' }, changes: [{ kind: 'move', path: 'x.md', from: 'inbox/x.md' }] }] }, [{ batch: { id: 'b2' }, changes: [{ kind: 'move', path: 'x.md', from: 'inbox/x.md' }] }]],
  ])('keeps the applied batches: %s', (_name, raw, want) => {
    expect(changeList(raw as never).batches).toEqual(want);
  });
});

describe("a move's question, note by note", () => {
  const head = 'Move a.md → b.md\nand updates 2 links in 2 notes:';
  it.each([
    ['a relinking move', `${head}\n\nx.md:\n- [[a]]\n+ [[b]]\n\ndeep/y.md:\n  ctx\n- [t](../a.md)\n+ [t](../b.md)`, 2],
    ['a move with no links', 'Move a.md → b.md', 0],
    ['an edit (not a move)', 'Change a.md:\n- x\n+ y', 0],
    ['a part that is not headed by a path', `${head}\n\nx.md:\n- [[a]]\n+ [[b]]\n\nsomething else`, 0],
  ])('%s', (_name, text, notes) => {
    const m = movedNotes(text);
    expect(m.notes).toHaveLength(notes);
    // Nothing is ever lost: the parts put together are the text.
    const joined = [m.head, ...m.notes.map((n) => `${n.title}:\n${n.diff}`)].join('\n\n');
    expect(joined).toBe(text);
  });
});

describe('the undo question', () => {
  it('lists the exact reverse of every change it undoes, in the order it undoes them', () => {
    const q = undoQuestion([change('chg_b'), change('chg_a')], ['chg_b', 'chg_a'], 's1');
    expect(q.title).toBe('Undo all 2 changes of “Garden”?');
    expect(q.ids).toEqual(['chg_b', 'chg_a']);
    const b = q.text.indexOf('1. Undo the change chg_b');
    const a = q.text.indexOf('2. Undo the change chg_a');
    expect(b).toBeGreaterThan(0);
    expect(a).toBeGreaterThan(b);
    expect(q.text).toContain('- - buy seeds');
  });

  it.each([
    [{ undone: ['chg_b'] }, ['chg_b'], 'Undone: chg_b.md is as it was before.'],
    [
      { undone: ['chg_c'], refused: { id: 'chg_b', path: 'chg_b.md', reason: 'It changed.' } },
      ['chg_c', 'chg_b', 'chg_a'],
      'Undone: chg_c.md. Not undone: chg_b.md. It changed. Quire stopped there, so these were not undone either: chg_a.md.',
    ],
    [{ undone: [], refused: { id: 'chg_b', path: 'chg_b.md', reason: 'It changed.' } }, ['chg_b'], 'Not undone: chg_b.md. It changed.'],
  ] as [UndoOutcome, string[], string][])('says which were undone and which not: %j', (o, asked, want) => {
    expect(outcomeText(o, asked, [change('chg_a'), change('chg_b'), change('chg_c')])).toBe(want);
  });
});

const mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
});

async function settle() {
  for (let i = 0; i < 8; i++) await Promise.resolve();
  flushSync();
}

function click(testid: string, n = 0) {
  const el = document.querySelectorAll<HTMLButtonElement>(`[data-testid="${testid}"]`)[n];
  if (!el) throw new Error(`no ${testid} on the page`);
  el.click();
  flushSync();
}

describe('the Changes list', () => {
  it('asks with the whole reverse before undoing, and gives the button back when the undo fails', async () => {
    let fail: (e: Error) => void = () => {};
    const h = host(() => new Promise((_, reject) => (fail = reject)));
    const notes = new NotesStore(h);
    await notes.load();
    mounted.push(mount(ChangesList, { target: document.body, props: { notes, active: 's1', onopen: () => {} } }));
    flushSync();
    expect(document.querySelectorAll('[data-testid="change"]')).toHaveLength(2);

    click('change-undo', 1);
    expect(document.querySelector('[data-testid="confirm-detail"]')?.textContent).toContain('Undo the change chg_a (append_note)');
    expect(h.undoChange).not.toHaveBeenCalled();
    click('confirm-delete');
    expect(h.undoChange).toHaveBeenCalledWith('chg_a');
    await settle();
    const buttons = () => [...document.querySelectorAll('[data-testid="change-undo"]')].map((b) => b.textContent?.trim());
    expect(buttons()).toEqual(['Undo', 'Undoing…']);

    fail(new Error('Quire could not reach its data folder.'));
    await settle();
    expect(buttons()).toEqual(['Undo', 'Undo']);
    expect(document.querySelector('[data-testid="changes-outcome"]')?.textContent).toContain('Quire could not reach its data folder.');
  });

  it('undoes a whole conversation after one question, says where it stopped, and shows both versions', async () => {
    const h = host(async (id) => ({ undone: [id] }));
    const notes = new NotesStore(h);
    await notes.load();
    mounted.push(mount(ChangesList, { target: document.body, props: { notes, active: 's1', onopen: () => {} } }));
    flushSync();

    click('changes-undo-all');
    const detail = document.querySelector('[data-testid="confirm-detail"]')?.textContent ?? '';
    expect(detail.indexOf('chg_b')).toBeLessThan(detail.indexOf('chg_a'));
    click('confirm-delete');
    await settle();
    expect(h.undoConversation).toHaveBeenCalledWith('s1', ['chg_b', 'chg_a']);
    const outcome = document.querySelector('[data-testid="changes-outcome"]')?.textContent ?? '';
    expect(outcome).toContain('Undone: chg_b.md.');
    expect(outcome).toContain('Not undone: chg_a.md. chg_a.md changed after Quire wrote it.');

    click('changes-versions');
    await settle();
    expect(h.noteVersions).toHaveBeenCalledWith('chg_a');
    expect(document.querySelector('[data-testid="version-quire"]')?.textContent).toBe('mine');
    expect(document.querySelector('[data-testid="version-now"]')?.textContent).toBe('theirs');
  });

  it('lists an applied batch as one entry among the changes, newest first, and undoes it as one after a question listing what it reverses', async () => {
    const batch = (over: Partial<Batch> = {}): Batch => ({
      id: 'b1', folder: 'inbox', title: 'Organise inbox (2 notes)', state: 'done', total: 2, done: 2, failed: 0, workers: 2, applied: 2,
      createdMs: Date.parse('2026-12-01T09:30:00Z'), updatedMs: Date.parse('2026-12-01T09:31:00Z'), ...over,
    });
    let applied: AppliedBatch = {
      batch: batch(),
      changes: [{ kind: 'move', path: 'projects/a.md', from: 'inbox/a.md' }, { kind: 'move', path: 'journal/b.md', from: 'inbox/b.md' }, { kind: 'edit', path: 'projects/a.md' }],
    };
    const older = change('chg_old', { time: '2026-12-01T08:00:00Z' });
    const newer = change('chg_new', { time: '2026-12-01T10:00:00Z' });
    const h = {
      ...host(async (id) => ({ undone: [id] })),
      noteChanges: vi.fn(async (): Promise<ChangeList> => ({ changes: [newer, older], undoAll: {}, batches: [structuredClone(applied)] })),
      confirmsBatchInDialog: false,
      undoBatch: vi.fn(async (id: string) => {
        applied = { batch: batch({ id, state: 'undone', updatedMs: Date.parse('2026-12-01T09:32:00Z') }), changes: [] };
        return applied.batch;
      }),
    };
    const notes = new NotesStore(h);
    await notes.load();
    expect(changeEntries(await h.noteChanges()).map((e) => (e.kind === 'change' ? e.change.id : e.batch.batch.id))).toEqual(['chg_new', 'b1', 'chg_old']);
    mounted.push(mount(ChangesList, { target: document.body, props: { notes, active: null, onopen: () => {} } }));
    flushSync();
    const order = () => [...document.querySelectorAll<HTMLElement>('[data-testid="change"], [data-testid="change-batch"]')].map((e) => e.dataset.id);
    expect(order()).toEqual(['chg_new', 'b1', 'chg_old']);
    expect(document.querySelector('[data-testid="change-batch-lines"]')?.textContent).toBe('inbox/a.md → projects/a.md\ninbox/b.md → journal/b.md\nprojects/a.md: tags and links\n');

    click('change-batch-undo');
    const lines = [...document.querySelectorAll('[data-testid="confirm-lines"] li')].map((l) => l.textContent);
    expect(lines).toEqual(['projects/a.md → inbox/a.md', 'journal/b.md → inbox/b.md', 'projects/a.md: its tags and links as before']);
    expect(h.undoBatch).not.toHaveBeenCalled();
    click('confirm-delete');
    await settle();
    expect(h.undoBatch).toHaveBeenCalledWith('b1');
    expect(document.querySelector('[data-testid="changes-outcome"]')?.textContent).toContain('Undone: the 3 changes are put back as before the batch.');
    expect(document.querySelector<HTMLElement>('[data-testid="change-batch"]')?.dataset.state).toBe('undone');
    expect(document.querySelector('[data-testid="change-batch-undo"]')).toBeNull();
  });

  // One question per decision (issue 31): in the window the native dialog
  // asks, so the page does not ask first (it named chg_… and then the
  // native dialog asked again).
  it('in the window undoes a change, a conversation and a batch after the native dialog alone', async () => {
    const h = {
      ...host(async (id) => ({ undone: [id] })),
      confirmsUndoInDialog: true,
      confirmsBatchInDialog: true,
      noteChanges: vi.fn(async () => ({
        changes: [change('chg_b'), change('chg_a')],
        undoAll: { s1: ['chg_b', 'chg_a'] },
        batches: [{ batch: { id: 'b1', folder: 'inbox', title: 'Organise inbox', state: 'done', total: 1, done: 1, failed: 0, workers: 1, applied: 1, createdMs: 0, updatedMs: 0 } as Batch, changes: [{ kind: 'move', path: 'x.md', from: 'inbox/x.md' } as BatchChange] }],
      })),
      undoBatch: vi.fn(async (id: string) => ({ id, state: 'undone' }) as Batch),
    };
    const notes = new NotesStore(h);
    await notes.load();
    mounted.push(mount(ChangesList, { target: document.body, props: { notes, active: 's1', onopen: () => {} } }));
    flushSync();
    click('change-undo');
    flushSync();
    expect(document.querySelector('[data-testid="confirm-dialog"]')).toBeNull();
    await settle();
    expect(h.undoChange).toHaveBeenCalledWith('chg_b');
    click('changes-undo-all');
    flushSync();
    expect(document.querySelector('[data-testid="confirm-dialog"]')).toBeNull();
    await settle();
    expect(h.undoConversation).toHaveBeenCalledTimes(1);
    click('change-batch-undo');
    flushSync();
    expect(document.querySelector('[data-testid="confirm-dialog"]')).toBeNull();
    await settle();
    expect(h.undoBatch).toHaveBeenCalledWith('b1');
  });

  it('undoes nothing when the question is cancelled', async () => {
    const h = host(async (id) => ({ undone: [id] }));
    const notes = new NotesStore(h);
    await notes.load();
    mounted.push(mount(ChangesList, { target: document.body, props: { notes, active: 's1', onopen: () => {} } }));
    flushSync();
    click('change-undo');
    click('confirm-cancel');
    await settle();
    expect(h.undoChange).not.toHaveBeenCalled();
    expect(document.querySelector('[data-testid="confirm-dialog"]')).toBeNull();
  });
});

describe("a note's links beside its text", () => {
  const text = { path: 'Hub.md', text: '# Hub', size: 5, limit: 262144, truncated: false };
  const links = { path: 'Hub.md', indexed: true, backlinks: [{ from: 'a/Alpha.md', target: 'Hub', line: 3, wiki: true }], unresolved: [], backlinkCount: 1, unresolvedCount: 0, limit: 50 };
  it('are read with the note, for that note', async () => {
    const h = host(async () => ({ undone: [] }));
    h.noteText.mockResolvedValue(text);
    h.noteLinks.mockResolvedValue(links);
    const notes = new NotesStore(h as never);
    await notes.preview('Hub.md');
    expect(h.noteLinks).toHaveBeenCalledWith('Hub.md');
    expect(notes.links).toEqual({ path: 'Hub.md', links });
  });
  it('that cannot be read never hide the note', async () => {
    const h = host(async () => ({ undone: [] }));
    h.noteText.mockResolvedValue(text);
    h.noteLinks.mockRejectedValue(new Error('The notes index is not open.'));
    const notes = new NotesStore(h as never);
    await notes.preview('Hub.md');
    expect(notes.note).toEqual(text);
    expect(notes.error).toBeNull();
    expect(notes.links).toEqual({ path: 'Hub.md', error: 'The notes index is not open.' });
  });
});
