// The batches' state in the page: every batch, the one shown with its tasks,
// live from the progress stream, and — once it is reviewing — its review
// list as the user ticks and edits it (lib/review.ts). Everything is read
// from Quire again when the page loads, so a reload finds the batch where it
// is (the newest that has not ended, or the one whose apply can be undone).
import type { Batch, BatchChange, BatchProgress, BatchReview, BatchTask } from './protocol';
import { approved, decision, destinationErrors, edited, allTicked, reviewRows, toggled, type ReviewRow } from './review';
import { batchReview, NO_BATCH_FOLDER, type BatchesTransport } from './transport/batches';

/** Quire's words as a sentence on the page: Go's errors start in lower case. */
export function asSentence(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** A panel's store while it acts: busy, and the sentence of its last failure or notice. */
export interface Acting {
  busy: boolean;
  error: string | null;
  notice: string | null;
}

/** Runs `f` with `s` busy, its last sentences cleared, and a failure kept as Quire's sentence. */
export async function busyWhile(s: Acting, f: () => Promise<void>): Promise<void> {
  s.busy = true;
  s.error = null;
  s.notice = null;
  try {
    await f();
  } catch (e) {
    s.error = asSentence(e instanceof Error ? e.message : String(e));
  } finally {
    s.busy = false;
  }
}

/** A batch whose work is not over: shown first after a reload. */
export function active(b: Batch): boolean {
  return b.state === 'running' || b.state === 'paused' || b.state === 'reviewing' || b.state === 'applying';
}

/** The batch to show when the page opens: the newest one not over, else the newest applied one (it can be undone). */
export function pickShown(list: Batch[]): Batch | null {
  return list.find(active) ?? list.find((b) => b.state === 'done' && b.applied > 0) ?? null;
}

/** "7 of 20 notes" (done and failed both count as finished). */
export function progressLabel(b: Batch): string {
  const ended = b.done + b.failed;
  const failed = b.failed ? ` · ${b.failed} failed` : '';
  return `${ended} of ${b.total} ${b.total === 1 ? 'note' : 'notes'}${failed}`;
}

/** A batch's state in words. */
export function stateLabel(b: Batch): string {
  switch (b.state) {
    case 'running':
      return `Working (${b.workers} ${b.workers === 1 ? 'assistant' : 'assistants'})`;
    case 'paused':
      return 'Paused: the notes being read finish, no new ones start';
    case 'reviewing':
      // A refused apply comes back here with why.
      return b.error ? `Waiting for your review (the last apply: ${b.error})` : 'Waiting for your review';
    case 'applying':
      return 'Applying your changes…';
    case 'done':
      return b.applied ? `Done: ${b.applied} ${b.applied === 1 ? 'note' : 'notes'} changed` : 'Done: nothing was changed';
    case 'cancelled':
      return b.error ? `Stopped: ${b.error}` : 'Stopped: nothing was changed';
    case 'failed':
      return b.error ? `Failed: ${b.error}` : 'Failed';
    case 'undone':
      return 'Undone: the notes are back as they were';
  }
  return b.state;
}

/** What undoing an applied batch reverses, one line each: "projects/a.md → inbox/a.md", "inbox/c.md: its tags and links as before". */
export function undoLines(changes: BatchChange[] | null | undefined): string[] {
  return (changes ?? []).map((c) => (c.kind === 'move' ? `${c.path} → ${c.from}` : `${c.path}: its tags and links as before`));
}

export class BatchesStore {
  /** Every batch, newest first. */
  list = $state<Batch[]>([]);
  /** The batch shown, with its tasks and review list. */
  shown = $state<BatchReview | null>(null);
  /** The review list as the user ticks and edits it (reviewing only). */
  rows = $state<ReviewRow[]>([]);
  /** Why the last action failed (Quire's sentence), shown until the next one. */
  error = $state<string | null>(null);
  /** What the last action did, when it is not visible otherwise ("Nothing was changed"). */
  notice = $state<string | null>(null);
  busy = $state(false);
  private stop: (() => void) | null = null;
  /** The review the rows were made from: a newer fetch of the same batch keeps the user's edits. */
  private rowsOf = '';

  constructor(private readonly host: BatchesTransport) {}

  get confirmsInDialog(): boolean {
    return this.host.confirmsBatchInDialog;
  }
  /** Each row's trouble with its destination, by task. */
  get problems(): Map<string, string> {
    return destinationErrors(this.rows);
  }
  /** The rows the one yes approves. */
  get approved(): ReviewRow[] {
    return approved(this.rows);
  }
  /** The tasks whose worker has a session to show ("see what the worker did"), in the batch's order. */
  get worked(): BatchTask[] {
    return (this.shown?.tasks ?? []).filter((t) => !!t.session);
  }
  /** The tasks that failed, with why. */
  get failures(): BatchTask[] {
    return (this.shown?.tasks ?? []).filter((t) => t.state === 'failed');
  }

  /**
   * Reads the list only (the sidebar's mark of a batch waiting for its
   * review), without following it: in a browser each followed stream holds
   * one of the few connections a page has to its origin.
   */
  async glance(): Promise<void> {
    try {
      this.list = (await this.host.batches()) ?? [];
    } catch {
      /* the drawer says why when it is opened */
    }
  }

  /** Follows every batch's progress and loads the batches; close() stops following. */
  async open(): Promise<void> {
    this.stop ??= this.host.subscribeBatches((p) => this.onProgress(p));
    await this.act(async () => {
      this.list = (await this.host.batches()) ?? [];
      const pick = this.shown ? this.list.find((b) => b.id === this.shown!.batch.id) ?? pickShown(this.list) : pickShown(this.list);
      if (pick) await this.load(pick.id);
    });
  }

  close() {
    this.stop?.();
    this.stop = null;
  }

  /** Shows batch id, with its tasks and review list. */
  async show(id: string): Promise<void> {
    await this.act(() => this.load(id));
  }

  private async load(id: string): Promise<void> {
    const r = batchReview(await this.host.batch(id));
    this.put(r.batch);
    this.shown = r;
    // The user's ticks and edits outlive a new read of the same review
    // (an apply Quire refused comes back to it through 'applying').
    const key = `${r.batch.id}:${(r.items ?? []).map((i) => i.task).join(',')}`;
    if (key !== this.rowsOf) {
      this.rows = reviewRows(r.items);
      this.rowsOf = key;
    }
  }

  /** Starts organising a folder inside the notes folder and shows it. */
  async begin(folder: string): Promise<void> {
    const f = folder.trim();
    if (!f) {
      this.error = NO_BATCH_FOLDER;
      return;
    }
    await this.act(async () => {
      const b = await this.host.startBatch(f);
      this.put(b);
      await this.load(b.id);
    });
  }

  pause = () => this.step((id) => this.host.pauseBatch(id));
  resume = () => this.step((id) => this.host.resumeBatch(id));
  cancel = () => this.step((id) => this.host.cancelBatch(id));

  toggle(task: string, on?: boolean) {
    this.rows = toggled(this.rows, task, on);
  }
  all(on: boolean) {
    this.rows = allTicked(this.rows, on);
  }
  edit(task: string, to: string) {
    this.rows = edited(this.rows, task, to);
  }

  /** The user's one yes (asked by the page first, and in the window by a native dialog too). */
  async apply(): Promise<void> {
    const id = this.shown?.batch.id;
    if (!id || this.problems.size > 0) return;
    // Plain data, not the page's reactive proxies: it is what the host is sent.
    const d = decision($state.snapshot(this.rows) as ReviewRow[]);
    await this.act(async () => {
      const b = await this.host.applyBatch(id, d);
      if (b.state === 'reviewing') this.notice = 'Nothing was changed: you said No. The list is still here.';
      await this.load(b.id);
    });
  }

  /** Undoes the shown batch's change, as one. */
  async undo(): Promise<void> {
    await this.step(async (id) => {
      const b = await this.host.undoBatch(id);
      if (b.state !== 'undone') this.notice = 'Nothing was undone: you said No.';
      return b;
    });
  }

  private async step(f: (id: string) => Promise<Batch>): Promise<void> {
    const id = this.shown?.batch.id;
    if (!id) return;
    await this.act(async () => {
      const b = await f(id);
      await this.load(b.id);
    });
  }

  private act(f: () => Promise<void>): Promise<void> {
    return busyWhile(this, f);
  }

  /** Adds or replaces a batch in the list, newest first. */
  private put(b: Batch) {
    const i = this.list.findIndex((x) => x.id === b.id);
    if (i >= 0) this.list[i] = b;
    else this.list = [b, ...this.list].sort((x, y) => y.createdMs - x.createdMs);
  }

  /** A change from the stream: the list, the shown batch and its task follow it. */
  onProgress(p: BatchProgress) {
    if (!p?.batch?.id) return;
    this.put(p.batch);
    const s = this.shown;
    if (!s || s.batch.id !== p.batch.id) return;
    const was = s.batch.state;
    s.batch = p.batch;
    if (p.task) {
      const tasks = s.tasks ?? [];
      const i = tasks.findIndex((t) => t.id === p.task!.id);
      if (i >= 0) tasks[i] = p.task;
      else tasks.push(p.task);
      s.tasks = tasks;
    }
    // The review list (or the applied result) is read whole once the state changes.
    // Not through act: the sentence of the user's last action stays.
    if (was !== p.batch.state) this.load(p.batch.id).catch((e) => (this.error = asSentence(e instanceof Error ? e.message : String(e))));
  }
}
