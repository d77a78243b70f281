// The Notes panel's state: the notes folder's tree (a folder at a time,
// loaded when opened), the note being previewed, and "Changes by Quire"
// with undo. Undo is done by Quire itself (the host's undoChange /
// undoConversation), never by asking the model; every undo waits for a yes
// on a question that shows the exact reverse. A failure or a refusal always
// gives the button back. An applied batch of the task queue is one entry
// among the changes, undone as one (the host's undoBatch) after a yes to a
// question listing what it reverses.
import { undoLines } from './batches.svelte';
import type { AppliedBatch, ChangeList, ChangeRecord, NoteFolder, NoteLinks, NoteText, NoteVersions, UndoOutcome } from './protocol';
import type { BatchesTransport } from './transport/batches';
import type { NotesTransport } from './transport/notes';
import { toError } from './transport/transport';

/** The note write tools, whose proposed calls can be previewed on their note. */
export const NOTE_WRITE_TOOLS: ReadonlySet<string> = new Set(['create_note', 'append_note', 'edit_note', 'move_note', 'make_folder', 'set_tags', 'link_notes']);

/** A question waiting for the user's yes: what it reverses, whole. */
export interface UndoQuestion {
  title: string;
  /** Every change it reverses, each with its exact reverse, in order. */
  text: string;
  ids: string[];
  /** Set for "undo all": the conversation. */
  session?: string;
}

/** One entry of "Changes by Quire": a change of a conversation, or an applied batch. */
export type ChangeEntry = { kind: 'change'; at: number; change: ChangeRecord } | { kind: 'batch'; at: number; batch: AppliedBatch };

/** Every change and applied batch of the list, newest first (a batch at its last change: its apply, or its undo). */
export function changeEntries(list: ChangeList): ChangeEntry[] {
  const out: ChangeEntry[] = [
    ...(list.changes ?? []).map((change) => ({ kind: 'change' as const, at: Date.parse(change.time) || 0, change })),
    ...(list.batches ?? []).map((batch) => ({ kind: 'batch' as const, at: batch.batch.updatedMs, batch })),
  ];
  return out.sort((a, b) => b.at - a.at);
}

/** What an applied batch changed, a line per note: from → to, or its tags and links. */
export function batchLines(b: AppliedBatch): string[] {
  return (b.changes ?? []).map((c) => (c.kind === 'move' ? `${c.from} → ${c.path}` : `${c.path}: tags and links`));
}

/** A batch undo waiting for the user's yes: what it puts back, a line per note. */
export interface BatchUndoQuestion {
  id: string;
  title: string;
  lines: string[];
}

/** The question for undoing `ids` (in that order), listing each reverse whole. */
export function undoQuestion(changes: readonly ChangeRecord[], ids: readonly string[], session?: string): UndoQuestion {
  const byId = new Map(changes.map((c) => [c.id, c]));
  const parts = ids.map((id, i) => {
    const c = byId.get(id);
    const head = ids.length > 1 ? `${i + 1}. ` : '';
    return head + (c ? c.reverse : `Undo the change ${id}.`);
  });
  if (session !== undefined) {
    const title = changes.find((c) => c.session === session)?.title || 'this conversation';
    return {
      title: `Undo all ${ids.length === 1 ? 'the change' : `${ids.length} changes`} of “${title}”?`,
      text: `Quire undoes these newest first and stops at the first it cannot undo:\n\n${parts.join('\n\n')}`,
      ids: [...ids],
      session,
    };
  }
  return { title: 'Undo this change?', text: parts.join('\n\n'), ids: [...ids] };
}

/** What an undo did, in words: which were undone and which not. */
export function outcomeText(o: UndoOutcome, asked: readonly string[], changes: readonly ChangeRecord[]): string {
  const name = (id: string) => changes.find((c) => c.id === id)?.path ?? id;
  const undone = o.undone ?? [];
  if (!o.refused) {
    return undone.length === 1 ? `Undone: ${name(undone[0])} is as it was before.` : `Undone, newest first: ${undone.map(name).join(', ')}.`;
  }
  const notTried = asked.slice(undone.length + 1);
  let text = undone.length > 0 ? `Undone: ${undone.map(name).join(', ')}. ` : '';
  text += `Not undone: ${name(o.refused.id)}. ${o.refused.reason}`;
  if (notTried.length > 0) text += ` Quire stopped there, so these were not undone either: ${notTried.map(name).join(', ')}.`;
  return text;
}

/** A line of a diff, marked as added, removed or context. */
export function diffLines(text: string): { text: string; kind: 'add' | 'del' | 'ctx' }[] {
  return text.split('\n').map((l) => ({ text: l, kind: l.startsWith('+ ') ? 'add' : l.startsWith('- ') ? 'del' : 'ctx' }));
}

/**
 * A move's question cut into what it approves: the head (the move, and "and
 * updates N links in M notes:") and each note whose links it rewrites, with
 * that note's diff, so the card can fold each note on its own. Go writes the
 * notes as blank-line-separated parts headed "path:" (tools/notes
 * relinkText), and every diff line starts with a marker ("  ", "- ", "+ "),
 * so a blank line only ever separates notes. Any other text, or one that
 * does not read that way, is all head: nothing is ever dropped.
 */
export function movedNotes(text: string): { head: string; notes: { title: string; diff: string }[] } {
  const parts = text.split('\n\n');
  if (parts.length < 2 || !/\nand updates \d+ links? in \d+ notes?:$/.test(parts[0])) return { head: text, notes: [] };
  const notes: { title: string; diff: string }[] = [];
  for (const part of parts.slice(1)) {
    const nl = part.indexOf('\n');
    const title = nl < 0 ? part : part.slice(0, nl);
    if (nl < 0 || !title.endsWith(':')) return { head: text, notes: [] };
    notes.push({ title: title.slice(0, -1), diff: part.slice(nl + 1) });
  }
  return { head: parts[0], notes };
}

/** A byte count as a person reads it. */
export function kb(n: number): string {
  return n < 1024 ? `${n} bytes` : `${Math.round(n / 1024)} KB`;
}

export class NotesStore {
  /** Each folder loaded so far, by path ("." is the top). */
  folders = $state.raw<Record<string, NoteFolder>>({});
  /** The folders shown open. */
  expanded = $state.raw<ReadonlySet<string>>(new Set(['.']));
  note = $state.raw<NoteText | null>(null);
  /** The shown note's backlinks and links that lead nowhere, or why they could not be read. */
  links = $state.raw<{ path: string; links?: NoteLinks; error?: string } | null>(null);
  changes = $state.raw<ChangeList>({ changes: [], undoAll: {} });
  /** The question waiting for a yes, if any. */
  asking = $state.raw<UndoQuestion | null>(null);
  /** The ids of an undo under way: their buttons say so, and only until it ends. */
  undoing = $state.raw<ReadonlySet<string>>(new Set());
  /** What the last undo did, or why it failed. */
  outcome = $state<{ text: string; tone: 'ok' | 'refused' | 'error'; changedSince?: string } | null>(null);
  versions = $state.raw<NoteVersions | null>(null);
  error = $state<string | null>(null);
  /** A batch's undo waiting for a yes, if any. */
  askingBatch = $state.raw<BatchUndoQuestion | null>(null);

  constructor(private readonly host: NotesTransport & Partial<Pick<BatchesTransport, 'undoBatch' | 'confirmsBatchInDialog'>>) {}

  /** The list's entries, newest first. */
  get entries(): ChangeEntry[] {
    return changeEntries(this.changes);
  }

  /** The window asks once more in a native dialog before a batch's undo. */
  get confirmsBatchInDialog(): boolean {
    return !!this.host.confirmsBatchInDialog;
  }

  /** Asks before undoing an applied batch: the question lists every note it puts back. */
  askUndoBatch(id: string): void {
    const b = (this.changes.batches ?? []).find((x) => x.batch.id === id);
    if (!b) return;
    this.askingBatch = { id, title: `Undo “${b.batch.title || b.batch.folder}”?`, lines: undoLines(b.changes) };
    if (this.host.confirmsBatchInDialog) void this.confirmBatch(); // the window's dialog asks, once
  }

  /** The user said yes to a batch's undo: Quire reverts the batch as one. */
  async confirmBatch(): Promise<void> {
    const q = this.askingBatch;
    if (!q) return;
    this.askingBatch = null;
    this.undoing = new Set([q.id]);
    try {
      if (!this.host.undoBatch) throw new Error('This Quire cannot undo a batch from here; update Quire.');
      const b = await this.host.undoBatch(q.id);
      this.outcome =
        b.state === 'undone'
          ? { text: `Undone: ${q.lines.length === 1 ? 'the note is' : `the ${q.lines.length} changes are`} put back as before the batch.`, tone: 'ok' }
          : { text: 'Nothing was undone: you said No.', tone: 'refused' };
    } catch (e) {
      this.outcome = { text: toError(e).message, tone: 'error' };
    } finally {
      this.undoing = new Set();
    }
    await this.refresh();
  }

  /** The top of the tree and the changes. */
  async load(): Promise<void> {
    await Promise.all([this.openFolder('.'), this.loadChanges()]);
  }

  /** Reloads what is shown: the open folders, the note, the changes. */
  async refresh(): Promise<void> {
    await Promise.all([...[...this.expanded].map((p) => this.openFolder(p)), this.loadChanges(), this.note ? this.preview(this.note.path) : null]);
  }

  async openFolder(path: string): Promise<void> {
    try {
      const f = await this.host.notesTree(path === '.' ? '' : path);
      this.folders = { ...this.folders, [path]: f };
      this.expanded = new Set([...this.expanded, path]);
      this.error = null;
    } catch (e) {
      this.error = toError(e).message;
    }
  }

  toggle(path: string): void {
    if (this.expanded.has(path)) {
      const next = new Set(this.expanded);
      next.delete(path);
      this.expanded = next;
    } else {
      void this.openFolder(path);
    }
  }

  async preview(path: string): Promise<void> {
    // The note's place in the link graph comes beside its text; a graph
    // that cannot answer (an index not ready, an older host) never hides
    // the note itself.
    const links = this.host.noteLinks(path).then(
      (l) => l,
      (e) => ({ error: toError(e).message }),
    );
    try {
      this.note = await this.host.noteText(path);
      this.error = null;
    } catch (e) {
      this.error = toError(e).message;
      return;
    }
    const l = await links;
    if (this.note?.path === path) this.links = 'error' in l ? { path, error: l.error } : { path, links: l };
  }

  async loadChanges(): Promise<void> {
    try {
      this.changes = await this.host.noteChanges();
      this.error = null;
    } catch (e) {
      this.error = toError(e).message;
    }
  }

  /**
   * Asks before undoing one change: the question shows its exact reverse.
   * Where the host asks in a native dialog (the window), that dialog is the
   * one question: the page asking first made two for one decision.
   */
  askUndo(id: string): void {
    this.asking = undoQuestion(this.changes.changes ?? [], [id]);
    if (this.host.confirmsUndoInDialog) void this.confirm();
  }

  /** Asks once before undoing every standing change of a conversation. */
  askUndoAll(session: string): void {
    const ids = this.changes.undoAll?.[session] ?? [];
    if (ids.length === 0) return;
    this.asking = undoQuestion(this.changes.changes ?? [], ids, session);
    if (this.host.confirmsUndoInDialog) void this.confirm();
  }

  /** The user said no. */
  cancel(): void {
    this.asking = null;
  }

  /** The user said yes to the question: Quire undoes exactly what it listed. */
  async confirm(): Promise<void> {
    const q = this.asking;
    if (!q) return;
    this.asking = null;
    this.undoing = new Set(q.ids);
    const list = this.changes.changes ?? [];
    try {
      const o = q.session !== undefined ? await this.host.undoConversation(q.session, q.ids) : await this.host.undoChange(q.ids[0]);
      this.outcome = {
        text: outcomeText(o, q.ids, list),
        tone: o.refused ? 'refused' : 'ok',
        ...(o.refused?.changedSince ? { changedSince: o.refused.id } : {}),
      };
    } catch (e) {
      this.outcome = { text: toError(e).message, tone: 'error' };
    } finally {
      this.undoing = new Set();
    }
    await this.refresh();
  }

  /** Both versions of a note whose undo was refused: Quire's and now. */
  async showVersions(id: string): Promise<void> {
    try {
      this.versions = await this.host.noteVersions(id);
    } catch (e) {
      this.outcome = { text: toError(e).message, tone: 'error' };
    }
  }
}
