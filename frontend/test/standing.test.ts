// @vitest-environment jsdom
// The Standing tasks panel mounted in jsdom over a real StandingStore and a
// host that keeps its tasks as the Go side would: a task is added through
// the form (its schedule as the host takes it), paused and resumed at
// once, run now (its batch then waits, and Run now is off), edited and
// removed; a flagged task says so; a refusal shows the host's sentence.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import StandingPanel from '../src/components/StandingPanel.svelte';
import type { StandingFiring, StandingSummary, StandingTask } from '../src/lib/protocol';
import { draftTask, emptyDraft, StandingStore } from '../src/lib/standing.svelte';
import type { StandingTransport } from '../src/lib/transport/standing';

const mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
});

class Host implements StandingTransport {
  tasks: StandingTask[] = [];
  waiting = new Set<string>();
  flagged = new Set<string>();
  sum(t: StandingTask): StandingSummary {
    return { task: t, schedule: `${t.schedule.kind} ${t.schedule.at ?? ''}`.trim(), proposed: 0, kept: 0, waiting: this.waiting.has(t.id), flagged: this.flagged.has(t.id) };
  }
  async standingTasks(): Promise<StandingSummary[]> {
    return this.tasks.map((t) => this.sum(t));
  }
  addStandingTask = vi.fn(async (t: StandingTask) => {
    if (t.schedule.kind === 'daily' && !/^\d\d:\d\d$/.test(t.schedule.at ?? '')) throw new Error('the time "" is not HH:MM, like 18:30');
    const saved = { ...t, id: `task_${this.tasks.length + 1}`, createdMs: 1 };
    this.tasks.push(saved);
    return this.sum(saved);
  });
  editStandingTask = vi.fn(async (t: StandingTask) => {
    this.tasks = this.tasks.map((x) => (x.id === t.id ? t : x));
    return this.sum(t);
  });
  pauseStandingTask = vi.fn(async (id: string, paused: boolean) => {
    const t = this.tasks.find((x) => x.id === id)!;
    t.paused = paused;
    return this.sum(t);
  });
  removeStandingTask = vi.fn(async (id: string) => {
    this.tasks = this.tasks.filter((x) => x.id !== id);
  });
  runStandingTask = vi.fn(async (id: string): Promise<StandingFiring> => {
    this.waiting.add(id);
    return { id: 'firing_1', task: id, slotMs: 1, step: 'proposed', batch: 'batch_1', startedMs: 1, updatedMs: 1 };
  });
}

const q = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
function type(id: string, v: string) {
  const el = q(id) as HTMLInputElement;
  el.value = v;
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

describe('draftTask', () => {
  it('sends only the schedule fields its kind has', () => {
    const d = { ...emptyDraft(), name: ' File ', folder: ' inbox ', kind: 'over' as const, more: 30 };
    expect(draftTask(d).schedule).toEqual({ kind: 'over', more: 30 });
    expect(draftTask({ ...d, kind: 'weekly', weekday: 'friday', at: '09:00' }).schedule).toEqual({ kind: 'weekly', at: '09:00', weekday: 'friday' });
    expect(draftTask(d).name).toBe('File');
    expect(draftTask(d).instruction).toBeUndefined();
  });
});

describe('StandingPanel', () => {
  it('adds, pauses, runs, edits and removes through the host', async () => {
    const host = new Host();
    const store = new StandingStore(host);
    await store.load();
    const target = document.createElement('div');
    document.body.appendChild(target);
    mounted.push(mount(StandingPanel, { target, props: { store } }));
    flushSync();
    expect(q('standing-empty')).not.toBeNull();

    type('standing-name', 'File the inbox');
    type('standing-instruction', 'Receipts go under finance/receipts');
    q('standing-at')!.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    (q('standing-save') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(q('standing-task_1')).not.toBeNull());
    expect(host.addStandingTask).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'File the inbox', folder: 'inbox', instruction: 'Receipts go under finance/receipts', schedule: { kind: 'daily', at: '18:00' } }),
    );
    expect(q('standing-task_1')!.textContent).toContain('Not fired yet.');

    (q('standing-pause') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(q('standing-task_1')!.dataset.paused).toBe('true'));
    expect(q('standing-pause')!.textContent).toContain('Resume');
    (q('standing-pause') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(q('standing-task_1')!.dataset.paused).toBe('false'));

    (q('standing-run') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(q('standing-row-waiting')).not.toBeNull());
    expect(store.waiting).toBe(true);
    expect((q('standing-run') as HTMLButtonElement).disabled).toBe(true);

    (q('standing-edit') as HTMLButtonElement).click();
    flushSync();
    expect((q('standing-name') as HTMLInputElement).value).toBe('File the inbox');
    type('standing-name', 'File the inbox nightly');
    flushSync();
    (q('standing-save') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(q('standing-task_1')!.textContent).toContain('File the inbox nightly'));
    expect(host.editStandingTask).toHaveBeenCalledWith(expect.objectContaining({ id: 'task_1', name: 'File the inbox nightly' }));

    host.flagged.add('task_1');
    await store.load();
    flushSync();
    expect(q('standing-flagged')!.textContent).toContain('You kept nothing');

    (q('standing-remove') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(q('standing-task_1')).toBeNull());
  });

  it('shows the host’s refusal and keeps the list', async () => {
    const host = new Host();
    const store = new StandingStore(host);
    await store.load();
    const target = document.createElement('div');
    document.body.appendChild(target);
    mounted.push(mount(StandingPanel, { target, props: { store } }));
    type('standing-name', 'Bad');
    flushSync();
    const ok = await store.add({ ...emptyDraft(), name: 'Bad', at: '' });
    flushSync();
    expect(ok).toBe(false);
    expect(q('standing-error')!.textContent).toContain('HH:MM');
    expect(store.tasks).toEqual([]);
  });
});
