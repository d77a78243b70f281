// @vitest-environment jsdom
// The batches' store and panel mounted in jsdom over a real BatchesStore
// and a host whose batch the test moves along (progress events, the review,
// the apply and the undo), as Quire's queue would.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import BatchesButton from '../src/components/BatchesButton.svelte';
import BatchesPanel from '../src/components/BatchesPanel.svelte';
import { BatchesStore, pickShown, progressLabel, stateLabel, undoLines } from '../src/lib/batches.svelte';
import type { Batch, BatchDecision, BatchProgress, BatchReview, BatchTask, ReviewItem } from '../src/lib/protocol';
import { NO_BATCH_FOLDER, type BatchesTransport } from '../src/lib/transport/batches';
import type { CallsTransport } from '../src/lib/transport/calls';
import { HttpTransport } from '../src/lib/transport/http';
import { WailsTransport } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

function batch(over: Partial<Batch> = {}): Batch {
  return { id: 'b1', folder: 'inbox', title: 'Organise inbox (3 notes)', state: 'running', total: 3, done: 0, failed: 0, workers: 2, applied: 0, createdMs: 2, updatedMs: 2, ...over };
}
function task(id: string, note: string, over: Partial<BatchTask> = {}): BatchTask {
  return { id, note, state: 'queued', attempts: 0, proposal: null, ...over };
}
const ITEMS: ReviewItem[] = [
  { task: 't1', from: 'inbox/a.md', to: 'projects/a.md', tags: ['idea'], links: [], reason: 'a project idea', selected: true },
  { task: 't2', from: 'inbox/b.md', to: 'journal/b.md', tags: null, links: null, reason: 'a diary entry', selected: true },
];

/** A host holding one batch the test moves along. */
function host(start: BatchReview = { batch: batch(), tasks: [task('t1', 'inbox/a.md'), task('t2', 'inbox/b.md'), task('t3', 'inbox/c.md')], items: null, changes: null }) {
  let review: BatchReview = structuredClone(start);
  let listener: ((p: BatchProgress) => void) | null = null;
  /** What the window's dialog answers (confirmsBatchInDialog); the browser has none. */
  let dialogYes = true;
  const t = {
    confirmsBatchInDialog: false as boolean,
    batches: vi.fn(async () => [structuredClone(review.batch), batch({ id: 'b0', state: 'done', applied: 4, createdMs: 1, title: 'Organise old' })]),
    batch: vi.fn(async (id: string) => {
      if (id !== review.batch.id) throw new Error('there is no such batch');
      return structuredClone(review);
    }),
    startBatch: vi.fn(async (folder: string) => {
      if (folder === 'nope') throw new Error('there is no folder "nope" in your notes folder; check its name');
      return structuredClone(review.batch);
    }),
    pauseBatch: vi.fn(async () => ((review.batch.state = 'paused'), structuredClone(review.batch))),
    resumeBatch: vi.fn(async () => ((review.batch.state = 'running'), structuredClone(review.batch))),
    cancelBatch: vi.fn(async () => ((review.batch.state = 'cancelled'), structuredClone(review.batch))),
    applyBatch: vi.fn(async (_id: string, d: BatchDecision) => {
      if (!dialogYes) return structuredClone(review.batch);
      const bad = d.items?.find((i) => i.selected && i.to === 'taken/x.md');
      if (bad) {
        // As the queue does: applying, then back to the review with why.
        review.batch = { ...review.batch, state: 'applying' };
        listener?.({ batch: structuredClone(review.batch), task: null });
        await new Promise((r) => setTimeout(r, 0));
        review.batch = { ...review.batch, state: 'reviewing', error: 'nothing was changed: taken/x.md already exists' };
        listener?.({ batch: structuredClone(review.batch), task: null });
        await new Promise((r) => setTimeout(r, 0));
        throw new Error('taken/x.md already exists: choose another place for inbox/a.md');
      }
      const picked = d.items!.filter((i) => i.selected);
      const changes = picked.flatMap((i) => [
        ...(i.to !== i.from ? [{ kind: 'move' as const, path: i.to, from: i.from }] : []),
        ...(i.tags?.length || i.links?.length ? [{ kind: 'edit' as const, path: i.to }] : []),
      ]);
      review = { ...review, batch: { ...review.batch, state: 'done', applied: picked.length }, changes };
      return structuredClone(review.batch);
    }),
    undoBatch: vi.fn(async () => ((review.batch.state = 'undone'), (review.changes = []), structuredClone(review.batch))),
    subscribeBatches: vi.fn((f: (p: BatchProgress) => void) => {
      listener = f;
      return () => (listener = null);
    }),
  } satisfies BatchesTransport;
  return {
    t,
    /** A task ends: the batch counts it, and the stream says so. */
    finish(id: string, over: Partial<BatchTask> = {}) {
      const tk = review.tasks!.find((x) => x.id === id)!;
      Object.assign(tk, { state: 'done', attempts: 1 }, over);
      review.batch = { ...review.batch, done: review.batch.done + (tk.state === 'done' ? 1 : 0), failed: review.batch.failed + (tk.state === 'failed' ? 1 : 0) };
      listener?.({ batch: structuredClone(review.batch), task: structuredClone(tk) });
    },
    /** Every task ended: the batch waits for the review. */
    reviewing(items = ITEMS) {
      review = { ...review, batch: { ...review.batch, state: 'reviewing' }, items: structuredClone(items) };
      listener?.({ batch: structuredClone(review.batch), task: null });
    },
    sayNo() {
      dialogYes = false;
    },
    listening: () => listener !== null,
  };
}

const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const mounted: ReturnType<typeof mount>[] = [];
function render(store: BatchesStore, calls: CallsTransport = { calls: vi.fn(), modelCall: vi.fn(), callRequest: vi.fn() }) {
  const target = document.createElement('div');
  document.body.appendChild(target);
  mounted.push(mount(BatchesPanel, { target, props: { batches: store, host: calls } }) as ReturnType<typeof mount>);
  flushSync();
  return target;
}
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
});
const q = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const all = (root: ParentNode, id: string) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
function type(el: HTMLInputElement, v: string) {
  el.value = v;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

/** The panel over a host whose batch is in review (items), for the review's cases. */
async function inReview(h = host(), items = ITEMS) {
  const store = new BatchesStore(h.t);
  const el = render(store);
  await store.open();
  h.reviewing(items);
  await settle();
  return { h, store, el };
}

describe('batch words', () => {
  it.each([
    [batch({ done: 1, failed: 0 }), '1 of 3 notes'],
    [batch({ done: 1, failed: 1 }), '2 of 3 notes · 1 failed'],
    [batch({ total: 1, done: 1 }), '1 of 1 note'],
  ])('progress %#', (b, want) => expect(progressLabel(b)).toBe(want));

  it.each([
    [batch(), 'Working (2 assistants)'],
    [batch({ state: 'done', applied: 1 }), 'Done: 1 note changed'],
    [batch({ state: 'done' }), 'Done: nothing was changed'],
    [batch({ state: 'failed', error: 'the notes folder is gone' }), 'Failed: the notes folder is gone'],
  ])('state %#', (b, want) => expect(stateLabel(b)).toBe(want));

  it('a reload shows the newest batch not over, else the newest applied one', () => {
    const old = batch({ id: 'old', state: 'done', applied: 2 });
    expect(pickShown([batch({ id: 'c', state: 'cancelled' }), batch({ id: 'p', state: 'paused' }), old])?.id).toBe('p');
    expect(pickShown([batch({ id: 'c', state: 'cancelled' }), old])?.id).toBe('old');
    expect(pickShown([batch({ id: 'u', state: 'undone' }), batch({ id: 'n', state: 'done' })])).toBeNull();
  });

  it('undo lists what it reverses', () => {
    expect(
      undoLines([
        { kind: 'move', path: 'projects/a.md', from: 'inbox/a.md' },
        { kind: 'edit', path: 'projects/a.md' },
      ]),
    ).toEqual(['projects/a.md → inbox/a.md', 'projects/a.md: its tags and links as before']);
    expect(undoLines(null)).toEqual([]);
  });
});

describe('BatchesPanel', () => {
  it('follows a batch live: n of N, a failure with its reason, pause and resume', async () => {
    const h = host();
    const store = new BatchesStore(h.t);
    const el = render(store);
    await store.open();
    flushSync();
    expect(h.listening()).toBe(true);
    expect(q(el, 'batch-progress')?.textContent).toBe('0 of 3 notes');
    h.finish('t1');
    h.finish('t3', { state: 'failed', error: 'the model gave no proposal after 3 tries' });
    flushSync();
    expect(q(el, 'batch-progress')?.textContent).toBe('2 of 3 notes · 1 failed');
    expect(q(el, 'batch-bar')?.getAttribute('aria-valuenow')).toBe('67');
    expect(all(el, 'batch-failure').map((f) => f.textContent)).toEqual(['inbox/c.md: the model gave no proposal after 3 tries.']);
    q(el, 'batch-pause')!.click();
    await settle();
    expect(h.t.pauseBatch).toHaveBeenCalledWith('b1');
    expect(q(el, 'batch-view')?.dataset.state).toBe('paused');
    q(el, 'batch-resume')!.click();
    await settle();
    expect(q(el, 'batch-view')?.dataset.state).toBe('running');
    // The earlier batch is listed, to be opened.
    expect(all(el, 'batch-older').map((b) => b.textContent)).toEqual(['Organise old']);
  });

  it("shows each note's worker session read-only in the inspector, all its calls", async () => {
    const h = host();
    const calls = {
      calls: vi.fn(async () => ({
        calls: [
          { n: 1, runId: 'w-run', step: 1, attempt: 0, seq: 3, at: '2026-12-01T10:00:00Z', outcome: 'replied' as const, replySeq: 5, promptTokens: 0 },
        ],
        total: 1,
      })),
      modelCall: vi.fn(async () => {
        throw new Error('not read in this test');
      }),
      callRequest: vi.fn(),
    } satisfies CallsTransport;
    const store = new BatchesStore(h.t);
    const el = render(store, calls);
    await store.open();
    flushSync();
    expect(q(el, 'batch-workers')).toBeNull();
    h.finish('t1', { session: 'ws1' });
    h.finish('t3', { state: 'failed', error: 'no proposal', session: 'ws3' });
    flushSync();
    expect(all(el, 'batch-worker').map((w) => [w.dataset.note, w.dataset.session])).toEqual([
      ['inbox/a.md', 'ws1'],
      ['inbox/c.md', 'ws3'],
    ]);
    all(el, 'batch-worker-open')[1].click();
    await settle();
    expect(calls.calls).toHaveBeenCalledWith('ws3', '');
    expect(all(document.body, 'inspector-call').map((c) => c.dataset.n)).toEqual(['1']);
    q(document.body, 'inspector-close')!.click();
    flushSync();
    expect(q(document.body, 'inspector')).toBeNull();
  });

  it('says the refusal of a folder in words', async () => {
    const h = host();
    const store = new BatchesStore(h.t);
    const el = render(store);
    type(q(el, 'batch-folder') as HTMLInputElement, 'nope');
    q(el, 'batch-start')!.click();
    await settle();
    expect(q(el, 'batch-error')?.textContent).toBe('There is no folder "nope" in your notes folder; check its name');
    type(q(el, 'batch-folder') as HTMLInputElement, '  ');
    q(el, 'batch-start')!.click();
    await settle();
    expect(q(el, 'batch-error')?.textContent).toContain('Type the folder to organise');
    expect(h.t.startBatch).toHaveBeenCalledTimes(1);
  });

  it('reviews once: untick, edit, a destination refused in words, one Apply whose confirm lists everything', async () => {
    const { h, el } = await inReview(host(), [...ITEMS, { task: 't3', from: 'inbox/c.md', to: 'people/c.md', tags: [], links: ['inbox/a.md'], reason: 'about Ann', selected: true }]);
    const rows = () => all(el, 'review-row');
    expect(rows().map((r) => [r.dataset.from, r.dataset.to, r.dataset.selected])).toEqual([
      ['inbox/a.md', 'projects/a.md', 'true'],
      ['inbox/b.md', 'journal/b.md', 'true'],
      ['inbox/c.md', 'people/c.md', 'true'],
    ]);
    expect(all(rows()[0], 'review-reason').map((r) => r.textContent)).toEqual(['a project idea']);
    expect(all(rows()[0], 'review-tag').map((r) => r.textContent)).toEqual(['#idea']);
    expect(q(el, 'review-apply')?.textContent).toBe('Apply 3 changes');

    // Untick b.md; a collision is marked and blocks the one yes.
    (q(rows()[1], 'review-tick') as HTMLInputElement).click();
    flushSync();
    expect(q(el, 'review-apply')?.textContent).toBe('Apply 2 changes');
    type(q(rows()[2], 'review-to') as HTMLInputElement, 'projects/a.md');
    expect(q(rows()[2], 'review-problem')?.textContent).toContain('inbox/a.md is going to projects/a.md too');
    expect((q(el, 'review-apply') as HTMLButtonElement).disabled).toBe(true);
    type(q(rows()[2], 'review-to') as HTMLInputElement, 'people/ann.md');
    expect(q(el, 'review-problem')).toBeNull();

    // The confirm shows the count and every change; Cancel sends nothing.
    q(el, 'review-apply')!.click();
    flushSync();
    expect(document.querySelector('#confirm-title')?.textContent).toBe('Apply these 2 changes to your notes?');
    expect(all(document.body, 'confirm-lines')[0].textContent).toContain('inbox/a.md → projects/a.md · tags: idea');
    expect([...document.querySelectorAll('[data-testid="confirm-lines"] li')].map((li) => li.textContent)).toEqual([
      'inbox/a.md → projects/a.md · tags: idea',
      'inbox/c.md → people/ann.md · links: inbox/a.md',
    ]);
    q(document.body, 'confirm-cancel')!.click();
    flushSync();
    expect(h.t.applyBatch).not.toHaveBeenCalled();

    // The yes sends the list as decided, and the batch shows its undo.
    q(el, 'review-apply')!.click();
    flushSync();
    q(document.body, 'confirm-delete')!.click();
    await settle();
    expect(h.t.applyBatch).toHaveBeenCalledTimes(1);
    const d = h.t.applyBatch.mock.calls[0][1];
    expect(d.items?.map((i) => [i.from, i.to, i.selected])).toEqual([
      ['inbox/a.md', 'projects/a.md', true],
      ['inbox/b.md', 'journal/b.md', false],
      ['inbox/c.md', 'people/ann.md', true],
    ]);
    expect(q(el, 'batch-state')?.textContent).toBe('Done: 2 notes changed');

    // Undo: one click, a confirm listing what it reverses.
    q(el, 'batch-undo')!.click();
    flushSync();
    expect([...document.querySelectorAll('[data-testid="confirm-lines"] li')].map((li) => li.textContent)).toEqual([
      // In Quire's order.
      'projects/a.md → inbox/a.md',
      'projects/a.md: its tags and links as before',
      'people/ann.md → inbox/c.md',
      'people/ann.md: its tags and links as before',
    ]);
    q(document.body, 'confirm-delete')!.click();
    await settle();
    expect(h.t.undoBatch).toHaveBeenCalledWith('b1');
    expect(q(el, 'batch-state')?.textContent).toBe('Undone: the notes are back as they were');
  });

  it("shows Quire's refusal of a destination, and keeps the user's edits", async () => {
    const { store, el } = await inReview();
    type(q(all(el, 'review-row')[0], 'review-to') as HTMLInputElement, 'taken/x.md');
    (q(all(el, 'review-row')[1], 'review-tick') as HTMLInputElement).click();
    await store.apply();
    await settle();
    expect(q(el, 'batch-error')?.textContent).toBe('Taken/x.md already exists: choose another place for inbox/a.md');
    expect((q(all(el, 'review-row')[0], 'review-to') as HTMLInputElement).value).toBe('taken/x.md');
    expect(all(el, 'review-row')[1].dataset.selected).toBe('false');
    expect(q(el, 'batch-view')?.dataset.state).toBe('reviewing');
    expect(q(el, 'batch-state')?.textContent).toBe('Waiting for your review (the last apply: nothing was changed: taken/x.md already exists)');
  });

  it('in the window a No in the native dialog changes nothing and says so', async () => {
    const h = host();
    h.t.confirmsBatchInDialog = true;
    h.sayNo();
    const { el } = await inReview(h);
    q(el, 'review-apply')!.click();
    flushSync();
    expect(document.querySelector('#confirm-message')?.textContent).toContain('The window asks once more');
    q(document.body, 'confirm-delete')!.click();
    await settle();
    expect(q(el, 'batch-notice')?.textContent).toContain('Nothing was changed');
    expect(all(el, 'review-row')).toHaveLength(2);
  });

  it('discarding the review cancels the batch after asking', async () => {
    const { h, el } = await inReview();
    q(el, 'review-none')!.click();
    flushSync();
    expect(q(el, 'review-counts')?.textContent).toBe('0 of 2 ticked');
    expect((q(el, 'review-apply') as HTMLButtonElement).disabled).toBe(true);
    q(el, 'review-all')!.click();
    flushSync();
    expect(q(el, 'review-apply')?.textContent).toBe('Apply 2 changes');
    q(el, 'review-discard')!.click();
    flushSync();
    q(document.body, 'confirm-delete')!.click();
    await settle();
    expect(h.t.cancelBatch).toHaveBeenCalledWith('b1');
    expect(h.t.applyBatch).not.toHaveBeenCalled();
  });
});

describe('BatchesButton', () => {
  it('marks a batch waiting for review, and follows progress only while the drawer is open', async () => {
    const h = host({ batch: batch({ state: 'reviewing' }), tasks: [], items: ITEMS, changes: [] });
    const target = document.createElement('div');
    document.body.appendChild(target);
    mounted.push(mount(BatchesButton, { target, props: { host: { ...h.t, calls: vi.fn(), modelCall: vi.fn(), callRequest: vi.fn() } } }) as ReturnType<typeof mount>);
    await settle();
    expect(q(target, 'batches-waiting')).not.toBeNull();
    // A page holds few connections to its origin: no stream until the drawer opens.
    expect(h.t.subscribeBatches).not.toHaveBeenCalled();
    q(target, 'batches-open')!.click();
    await settle();
    expect(h.listening()).toBe(true);
    expect(all(target, 'review-row')).toHaveLength(2);
    q(target, 'batches-close')!.click();
    flushSync();
    expect(h.listening()).toBe(false);
    expect(q(target, 'batches-dialog')).toBeNull();
  });
});

describe('the transports', () => {
  it('the window: Apply goes to the bound method that asks, the rest through Op; progress is filtered', async () => {
    const apply = vi.fn(async (_id: string, _d: unknown) => batch({ state: 'reviewing' }));
    let emit: ((p: unknown) => void) | null = null;
    const rt = {
      EventsOnMultiple: (name: string, cb: (...d: unknown[]) => void) => {
        if (name === 'quire:batch') emit = cb;
        return () => (emit = null);
      },
    };
    const w = new WailsTransport({ ...bareApp({ 'Batches.Pause': (id: string) => batch({ id, state: 'paused' }) }), ApplyBatch: apply as never }, rt);
    expect(w.confirmsBatchInDialog).toBe(true);
    const d = { items: [{ ...ITEMS[0] }] };
    expect((await w.applyBatch('b1', d)).state).toBe('reviewing');
    expect(apply).toHaveBeenCalledWith('b1', d);
    expect((await w.pauseBatch('b1')).state).toBe('paused');
    await expect(w.startBatch('  ')).rejects.toThrow(NO_BATCH_FOLDER);
    const got: BatchProgress[] = [];
    const off = w.subscribeBatches((p) => got.push(p));
    emit!({ batch: batch({ done: 1 }), task: null });
    emit!('not a progress');
    emit!({ task: null });
    expect(got.map((p) => p.batch.done)).toEqual([1]);
    off();
    expect(emit).toBeNull();
  });

  it('the browser: the derived routes, and a refusal as its sentence', async () => {
    const calls: [string, string, unknown][] = [];
    const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      calls.push([init?.method ?? 'GET', path, init?.body ? JSON.parse(String(init.body)) : undefined]);
      if (path.endsWith('.Apply')) return new Response(JSON.stringify({ error: 'the batch is done, so it cannot be applied' }), { status: 409 });
      if (path.endsWith('.Get')) return new Response(JSON.stringify({ batch: batch(), tasks: null, items: null, changes: null }), { status: 200 });
      return new Response(JSON.stringify(batch()), { status: 200 });
    });
    const h = new HttpTransport('http://127.0.0.1:1', { fetch: fetch as typeof globalThis.fetch, eventSource: () => ({ addEventListener() {}, close() {} }) });
    expect(h.confirmsBatchInDialog).toBe(false);
    await h.startBatch(' inbox ');
    await h.pauseBatch('b/1');
    const r = await h.batch('b/1');
    expect([r.tasks, r.items, r.changes]).toEqual([[], [], []]);
    await expect(h.applyBatch('b/1', { items: [] })).rejects.toThrow('the batch is done, so it cannot be applied');
    expect(calls).toEqual([
      ['POST', '/api/op/Batches.Start', ['inbox']],
      ['POST', '/api/op/Batches.Pause', ['b/1']],
      ['POST', '/api/op/Batches.Get', ['b/1']],
      ['POST', '/api/op/Batches.Apply', ['b/1', { items: [] }]],
    ]);
  });
});
