// The Notes panel's part of the Transport (transport.ts extends it): the
// same operations over Wails bindings (wails.ts) and HTTP (http.ts, /api/op).
// Every method rejects with an Error whose message is a sentence for the user.
import type { ChangeList, NoteFolder, NoteLinks, NoteText, NoteVersions, UndoOutcome, WritePreview } from '../protocol';


export interface NotesTransport {
  /** One folder of the notes folder ("" for its top), folders first. */
  notesTree(path: string): Promise<NoteFolder>;
  /** A note's text for the read-only preview, bounded (`truncated`). */
  noteText(path: string): Promise<NoteText>;
  /** Every change by Quire, newest first, across conversations. */
  noteChanges(): Promise<ChangeList>;
  /**
   * True in the desktop window: undoChange and undoConversation ask in a
   * native dialog, which the page cannot click, so the page does not ask
   * first (one question per decision). False or absent in a browser: the
   * page's own question is the user's yes.
   */
  readonly confirmsUndoInDialog?: boolean;
  /** Undoes one change (after the user confirmed its `reverse`); a refusal is `refused`. */
  undoChange(id: string): Promise<UndoOutcome>;
  /**
   * Undoes a conversation's changes, exactly `ids` (what the confirmation
   * listed, `undoAll[session]`), newest first, stopping at the first refusal.
   */
  undoConversation(session: string, ids: string[]): Promise<UndoOutcome>;
  /** Quire's version of a note a change wrote, and the note now. */
  noteVersions(id: string): Promise<NoteVersions>;
  /** A proposed note write shown on its note, computed without writing. */
  previewWrite(tool: string, args: string): Promise<WritePreview>;
  /** A note's backlinks and unresolved links from the notes index (`indexed` false: not indexed yet). */
  noteLinks(path: string): Promise<NoteLinks>;
}

/** A note's links from a host, with the arrays a panel relies on. */
export function noteLinks(r: Partial<NoteLinks> | null | undefined, path: string): NoteLinks {
  return {
    path: r?.path ?? path,
    indexed: r?.indexed ?? false,
    backlinks: Array.isArray(r?.backlinks) ? r.backlinks : [],
    unresolved: Array.isArray(r?.unresolved) ? r.unresolved : [],
    backlinkCount: r?.backlinkCount ?? 0,
    unresolvedCount: r?.unresolvedCount ?? 0,
    limit: r?.limit ?? 0,
  };
}

/** A folder from a host, with the arrays a panel relies on. */
export function noteFolder(r: Partial<NoteFolder> | null | undefined): NoteFolder {
  return { root: r?.root ?? '', path: r?.path ?? '.', entries: Array.isArray(r?.entries) ? r.entries : [], ...(r?.omitted ? { omitted: r.omitted } : {}) };
}

/** A change list from a host, with the arrays a panel relies on. */
export function changeList(r: Partial<ChangeList> | null | undefined): ChangeList {
  const undoAll: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(r?.undoAll ?? {})) undoAll[k] = Array.isArray(v) ? v : [];
  // An applied batch's changes may come as null (Go's empty list).
  const batches = Array.isArray(r?.batches) ? r.batches.map((b) => ({ ...b, changes: Array.isArray(b.changes) ? b.changes : [] })) : [];
  return { changes: Array.isArray(r?.changes) ? r.changes : [], undoAll, batches, ...(r?.omitted ? { omitted: r.omitted } : {}) };
}

/** An undo's outcome from a host, with its list. */
export function undoOutcome(r: Partial<UndoOutcome> | null | undefined): UndoOutcome {
  return { undone: Array.isArray(r?.undone) ? r.undone : [], ...(r?.refused ? { refused: r.refused } : {}) };
}
