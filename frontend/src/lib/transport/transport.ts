// The one seam between the UI and a host. Two implementations: wails.ts
// (bindings + runtime events inside the desktop window) and http.ts (HTTP + SSE
// against `quire serve`, used in a browser and by the e2e tests), both over
// the one client of the ports' operations (client.ts). pick.ts chooses. Every method rejects with an Error whose message is a sentence for
// the user.
//
// The protocol handshake (PROTOCOL_VERSION) is each transport's own business
// and invisible here: Wails calls Handshake once before anything else, HTTP
// sends the version with every request.
import type { OpCall } from './ops';
import type { BranchResult, DoctorReport, Intent, MemoryItem, MemoryList, QEvent, Question, Session, ViewSnapshot } from '../protocol';
import type { CallsTransport } from './calls';
import type { ConversationsTransport } from './conversations';
import type { BatchesTransport } from './batches';
import type { EvolutionTransport } from './evolution';
import type { DocumentsTransport } from './documents';
import type { MCPTransport } from './mcp';
import type { ModelsTransport } from './models';
import type { NotesTransport } from './notes';
import type { SettingsTransport } from './settings';
import type { SkillsTransport } from './skills';
import type { StandingTransport } from './standing';

/** Why choosing a folder by path fails without a path. */
export const NO_FOLDER_PATH = 'Type the full path of the folder of your notes, like /home/you/Notes.';

/**
 * The memory panel's part of a host. Every method rejects with the host's
 * sentence (an unknown id, an empty or over-long text, …).
 */
export interface MemoryHost {
  /** Every remembered item and the memory settings. */
  memory(): Promise<MemoryList>;
  /** Replaces an item's text; resolves with the item as it now is. */
  editMemory(id: string, text: string): Promise<MemoryItem>;
  /** Forgets an item (the log keeps the events that made it). */
  forgetMemory(id: string): Promise<void>;
  /** Approves (keeps) or rejects a pending item. */
  reviewMemory(id: string, approve: boolean): Promise<void>;
  /** Changes the memory settings given; resolves with the list as it now is. */
  setMemorySettings(s: { approval?: boolean; learn?: boolean }): Promise<MemoryList>;
}


/** A list from a host, with the arrays and flags a panel relies on. */
export function memoryList(r: Partial<MemoryList> | null | undefined): MemoryList {
  return { items: Array.isArray(r?.items) ? r.items : [], approval: !!r?.approval, learn: !!r?.learn };
}

export interface Transport extends MemoryHost, DocumentsTransport, ModelsTransport, SettingsTransport, NotesTransport, CallsTransport, ConversationsTransport, BatchesTransport, MCPTransport, EvolutionTransport, SkillsTransport, StandingTransport {
  /**
   * Calls any operation of the host ports by name (Ops in protocol.ts,
   * generated from Go's host.Ports): an operation added in Go is callable
   * here at once, typed, in both hosts (client.ts, ops.ts).
   */
  readonly op: OpCall;
  /**
   * True when permission questions are answered in the page (HTTP). False in
   * the desktop window, where a native dialog asks and `answer` is not
   * offered: the page shows the question read-only.
   */
  readonly answersInPage: boolean;
  /**
   * How the notes folder is chosen. True in the desktop window:
   * `chooseNotesFolder()` opens the native folder dialog. False in a browser,
   * which cannot open one: the page asks for the folder's absolute path and
   * passes it to `chooseNotesFolder(path)`.
   */
  readonly choosesFolderInDialog: boolean;
  /** The notes folder (an absolute path), or "" until one is chosen. */
  notesFolder(): Promise<string>;
  /**
   * Chooses the notes folder and resolves with it. With a dialog
   * (choosesFolderInDialog) `path` is ignored: the dialog asks, and the
   * promise resolves with "" when the user cancelled (nothing changed).
   * Without one `path` is required (the absolute path of an existing folder);
   * Quire checks it and rejects with its sentence when it cannot be used.
   */
  chooseNotesFolder(path?: string): Promise<string>;
  /**
   * The health checks, made now (the first screen, "Check again"); the
   * report also reaches every subscribeHealth.
   */
  doctor(): Promise<DoctorReport>;
  /**
   * The health checks as Go re-checks them on its own (Ollama started or
   * stopped, a model downloaded): the latest report, then each change.
   * Optional: a host without it leaves the page to ask (a test's host).
   * Returns an unsubscribe function.
   */
  subscribeHealth?(onReport: (r: DoctorReport) => void): () => void;
  /** Newest first. */
  listSessions(): Promise<Session[]>;
  newSession(title: string): Promise<Session>;
  renameSession(id: string, title: string): Promise<Session>;
  deleteSession(id: string): Promise<void>;
  /** Public events of a session, from `from` on, in seq order. */
  events(id: string, from: number): Promise<QEvent[]>;
  /**
   * Starts a run; resolves with its run id. The reply arrives as events.
   * `key` is the message's idempotency key (newIdempotencyKey(), one per user
   * message): Quire treats a repeat with the same key and text as the same
   * message, so a transport may retry with it and the message is still
   * posted once. `intent` (default 'follow_up') says when it is taken up:
   * 'follow_up' the next request (queued while one is going), 'steer' the
   * next step of the request that is going. Resolves with the id of the run
   * it opens or joins.
   */
  send(id: string, text: string, key: string, intent?: Intent): Promise<string>;
  /**
   * Answers the open permission question of session `id` about `callIds`
   * (all the calls of the question). Rejects with the host's sentence, e.g.
   * when the question is already closed.
   */
  answer(id: string, callIds: string[], allowed: boolean, feedback: string): Promise<void>;
  /**
   * The questions Go is asking, each with its id and every call's whole
   * description (the questions already open are delivered first), so the
   * card shows the same in both hosts. In the desktop window (where
   * `answersInPage` is false) the page shows a question in full on its
   * card, then calls `questionShown(id)`: only then does the native dialog
   * open; that call cannot answer anything. In a browser the card answers,
   * and offers Allow only once it shows the question whole. Optional: a
   * host without it shows questions from the log alone (a test's host).
   * Returns an unsubscribe function.
   */
  subscribeQuestions?(onQuestion: (q: Question) => void): () => void;
  /** The desktop window only: the page has shown question `id` in full. */
  questionShown?(id: string): Promise<void>;
  cancel(id: string): Promise<void>;
  /**
   * Resends the user message at `seq` of session `id` with `text` instead:
   * Quire makes a branch from just before it and sends it there
   * (message.edit); the original stays. Resolves with the branch and its
   * run. `key` makes it safe to repeat, as for send.
   */
  editMessage(id: string, seq: number, text: string, key: string): Promise<BranchResult>;
  /** Asks again for the reply whose run has an event at `seq` of session `id`, in a new branch (message.regenerate). */
  regenerate(id: string, seq: number, key: string): Promise<BranchResult>;
  /** Asks the model to continue the reply of session `id` that was cut off (run.continue); resolves with the run id. */
  continueRun(id: string, key: string): Promise<string>;
  /** Test-only probe; resolves whether the host keeps snapshots (false: none is set, stop reporting). */
  reportView(snapshot: ViewSnapshot): Promise<boolean>;
  /**
   * Live updates. `onEvents` gets batches in seq order (any session);
   * `onSessions` gets the whole list whenever it changes. `onResync`, when
   * given, is called after the live stream reconnected and may have missed
   * something: the caller should catch up with `events(id, lastSeq + 1)`.
   * Returns an unsubscribe function.
   */
  subscribe(
    onEvents: (events: QEvent[]) => void,
    onSessions: (sessions: Session[]) => void,
    onResync?: () => void,
  ): () => void;
}

/** Turns whatever a host rejected with into an Error with a readable message. */
export function toError(e: unknown): Error {
  if (e instanceof Error) return e;
  if (typeof e === 'string') return new Error(e);
  if (e && typeof e === 'object' && 'error' in e && typeof (e as { error: unknown }).error === 'string') {
    return new Error((e as { error: string }).error);
  }
  try {
    return new Error(JSON.stringify(e));
  } catch {
    return new Error(String(e));
  }
}
