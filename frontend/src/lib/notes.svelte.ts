// The Notes panel's state: the notes folder's tree (a folder at a time,
// loaded when opened), the note being previewed, and "Changes by Quire"
// with undo. Undo is done by Quire itself (the host's undoChange /
// undoConversation), never by asking the model; every undo waits for a yes
// on a question that shows the exact reverse. A failure or a refusal always
// gives the button back.
import type { ChangeList, ChangeRecord, NoteFolder, NoteText, NoteVersions, UndoOutcome } from './protocol';
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
  changes = $state.raw<ChangeList>({ changes: [], undoAll: {} });
  /** The question waiting for a yes, if any. */
  asking = $state.raw<UndoQuestion | null>(null);
  /** The ids of an undo under way: their buttons say so, and only until it ends. */
  undoing = $state.raw<ReadonlySet<string>>(new Set());
  /** What the last undo did, or why it failed. */
  outcome = $state<{ text: string; tone: 'ok' | 'refused' | 'error'; changedSince?: string } | null>(null);
  versions = $state.raw<NoteVersions | null>(null);
  error = $state<string | null>(null);

  constructor(private readonly host: NotesTransport) {}

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
    try {
      this.note = await this.host.noteText(path);
      this.error = null;
    } catch (e) {
      this.error = toError(e).message;
    }
  }

  async loadChanges(): Promise<void> {
    try {
      this.changes = await this.host.noteChanges();
      this.error = null;
    } catch (e) {
      this.error = toError(e).message;
    }
  }

  /** Asks before undoing one change: the question shows its exact reverse. */
  askUndo(id: string): void {
    this.asking = undoQuestion(this.changes.changes ?? [], [id]);
  }

  /** Asks once before undoing every standing change of a conversation. */
  askUndoAll(session: string): void {
    const ids = this.changes.undoAll?.[session] ?? [];
    if (ids.length > 0) this.asking = undoQuestion(this.changes.changes ?? [], ids, session);
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
