// Transport inside the Wails window: the generated bindings of the Go `App`
// (frontend/wailsjs/go/main/App.js, written by `make bindings`; test/bindings
// fails when they are stale) and the generated runtime's events
// (frontend/wailsjs/runtime). The page ships inside the same binary as the
// window, so every bound method is there: none is optional. Shapes:
// docs/PROTOCOL.md.
//
// The ports' operations go through the one client (client.ts) over the
// bound Op (ops.ts); this file adds the session commands, the runtime
// events and the dialogs only the window has.
//
// Handshake: Go refuses every bound method but Doctor, NotesFolder,
// ChooseNotesFolder (and the test probe) until Handshake(PROTOCOL_VERSION)
// succeeded, so the first call that needs it shakes hands and every call
// awaits that one memoised promise. If it fails, every such call rejects with
// its sentence.
//
// The notes folder: ChooseNotesFolder opens Go's native folder dialog, so
// `choosesFolderInDialog` is true and the page offers no path field.
//
// Permission questions: Go asks them in a native dialog, so there is no bound
// method to answer one; `answersInPage` is false and `answer` rejects. Before
// the dialog opens, Go sends the question whole (quire:question); the page
// shows it and calls QuestionShown, which only lets the dialog open.
import * as bound from '../../../wailsjs/go/main/App';
import * as boundRuntime from '../../../wailsjs/runtime/runtime';
import type { BatchProgress, BranchResult, DoctorReport, EvaluationJob, IndexProgress, Intent, MCPServer, PullProgress, QEvent, Question, Session, SettingsSaved, UserSettings, ViewSnapshot } from '../protocol';
import { PROTOCOL_VERSION, RuntimeEvent } from '../protocol';
import { PortsClient } from './client';
import { type ExportFormat, type Exported } from './conversations';
import { evaluationJob } from './evolution';
import { mcpServer, type McpServer } from './mcp';
import { wailsOps, type OpCall } from './ops';
import { SettingRefused, settingsScreen } from './settings';
import { toError, type Transport } from './transport';
import type { SettingsScreen } from '../protocol';

type Bound = typeof bound;
/**
 * A bound method: its name and parameters are the generated binding's (so a
 * method renamed or re-typed in Go fails `npm run check` here), its result the
 * JSON shape of ../protocol (the generated classes are never constructed: the
 * window hands over plain JSON).
 */
type Method<K extends keyof Bound, R> = (...args: Parameters<Bound[K]>) => Promise<R>;

/** The bound methods of the Go `App` struct this transport calls. */
export interface WailsApp {
  /** Must come first; resolves with Quire's protocol version, rejects when incompatible. */
  Handshake: Method<'Handshake', string>;
  Doctor: Method<'Doctor', DoctorReport>;
  ListSessions: Method<'ListSessions', Session[] | null>;
  NewSession: Method<'NewSession', Session>;
  RenameSession: Method<'RenameSession', Session>;
  DeleteSession: Method<'DeleteSession', void>;
  Events: Method<'Events', QEvent[] | null>;
  /** `key` is the message's idempotency key; the intent is follow_up. */
  Send: Method<'Send', string>;
  /** Send with an intent ('follow_up' | 'steer' | 'inject'); used when it is not follow_up. */
  SendWith: Method<'SendWith', string>;
  Cancel: Method<'Cancel', void>;
  /** message.edit, message.regenerate, run.continue. */
  EditMessage: Method<'EditMessage', BranchResult>;
  Regenerate: Method<'Regenerate', BranchResult>;
  ContinueRun: Method<'ContinueRun', string>;
  /** Whether a probe is set. */
  ReportView: Method<'ReportView', boolean | void>;
  /** The notes folder, "" until chosen. Needs no handshake. */
  NotesFolder: Method<'NotesFolder', string>;
  /**
   * Opens the native folder dialog and remembers the choice: resolves with
   * the folder, or "" when cancelled; rejects with a sentence. Needs no
   * handshake.
   */
  ChooseNotesFolder: Method<'ChooseNotesFolder', string>;
  /** Saves the Settings screen; a refused setting comes back as `refused`, naming its field. */
  SaveSettings: Method<'SaveSettings', SettingsSaved>;
  /** The questions the window is asking (to show them). */
  Questions: Method<'Questions', Question[] | null>;
  /** The page has shown question `id` in full: its dialog may open. It cannot answer. */
  QuestionShown: Method<'QuestionShown', void>;
  /** The export's save dialog: resolves with the file saved, or "" when the user cancelled. */
  ExportSession: Method<'ExportSession', string>;
  /** Any operation of the host ports by name (ops.ts), but those below. */
  Op: Method<'Op', unknown>;
  // The operations the window asks about in a native dialog first
  // (OP_CONFIRMED): on No each resolves with what it acted on, unchanged.
  UndoChange: Method<'UndoChange', unknown>;
  UndoConversation: Method<'UndoConversation', unknown>;
  ApplyBatch: Method<'ApplyBatch', unknown>;
  UndoBatch: Method<'UndoBatch', unknown>;
  PutMCPServer: Method<'PutMCPServer', unknown>;
  ImportMCP: Method<'ImportMCP', unknown>;
  SetMCPTool: Method<'SetMCPTool', unknown>;
  ApproveCandidate: Method<'ApproveCandidate', unknown>;
  ActivateCandidate: Method<'ActivateCandidate', unknown>;
  RollbackCandidate: Method<'RollbackCandidate', unknown>;
}

/** The generated bindings; only their results are re-typed (see Method). */
export const generatedApp = bound as unknown as WailsApp;

/** The part of the Wails JS runtime this app uses. */
export interface WailsRuntime {
  EventsOnMultiple(name: string, cb: (...data: unknown[]) => void, maxCallbacks: number): (() => void) | void;
  /** Sends an event to Go. Optional: without it the window is not told what the page has taken. */
  EventsEmit?(name: string, ...data: unknown[]): void;
  BrowserOpenURL?(url: string): void;
}

/** The generated runtime (its functions call window.runtime). */
export const generatedRuntime: WailsRuntime = boundRuntime;

declare global {
  interface Window {
    go?: { main?: { App?: WailsApp } };
    runtime?: WailsRuntime;
  }
}

/** Why WailsTransport.answer rejects: the desktop window answers in a native dialog. */
export const ANSWER_IN_DIALOG = 'In the Quire window, questions about running tools are answered in the dialog window.';

export class WailsTransport extends PortsClient implements Transport {
  readonly answersInPage = false;
  readonly choosesFolderInDialog = true;
  readonly takesFileDrops = true;
  readonly confirmsBatchInDialog = true;
  readonly confirmsLoosenInDialog = true;
  readonly confirmsEvolutionInDialog = true;
  /** Every operation, after the handshake, its rejection made an Error. */
  readonly op: OpCall;
  private handshake: Promise<void> | null = null;

  /** In the window, `app` and `runtime` are `generatedApp` and `generatedRuntime`; tests hand in fakes. */
  constructor(
    private readonly app: WailsApp,
    private readonly runtime: WailsRuntime | undefined,
  ) {
    super();
    const ops = wailsOps(app as unknown as Parameters<typeof wailsOps>[0]);
    this.op = ((name: Parameters<OpCall>[0], ...args: never[]) => this.call(() => (ops as (n: string, ...a: unknown[]) => Promise<unknown>)(name, ...args))) as OpCall;
  }

  /** The one Handshake of this transport, started by the first call that needs it. */
  private shakeHands(): Promise<void> {
    this.handshake ??= (async () => {
      await this.app.Handshake(PROTOCOL_VERSION);
    })().catch((e) => {
      throw toError(e);
    });
    return this.handshake;
  }

  /** Calls a bound method; after the handshake when it `needsHandshake` (all but Doctor, the notes folder's and ReportView). */
  private async call<T>(f: () => Promise<T>, needsHandshake = true): Promise<T> {
    if (needsHandshake) await this.shakeHands();
    try {
      return await f();
    } catch (e) {
      // Wails rejects with the Go error's text (a string), not an Error.
      throw toError(e);
    }
  }

  async doctor(): Promise<DoctorReport> {
    // The health checks must work even when the handshake would fail.
    const r = await this.call(() => this.app.Doctor(), false);
    return { ok: !!r?.ok, checks: r?.checks ?? [] };
  }
  async listSessions(): Promise<Session[]> {
    return (await this.call(() => this.app.ListSessions())) ?? [];
  }
  newSession(title: string): Promise<Session> {
    return this.call(() => this.app.NewSession(title));
  }
  renameSession(id: string, title: string): Promise<Session> {
    return this.call(() => this.app.RenameSession(id, title));
  }
  async deleteSession(id: string): Promise<void> {
    await this.call(() => this.app.DeleteSession(id));
  }
  async events(id: string, from: number): Promise<QEvent[]> {
    return (await this.call(() => this.app.Events(id, from))) ?? [];
  }
  send(id: string, text: string, key: string, intent: Intent = 'follow_up'): Promise<string> {
    if (intent === 'follow_up') return this.call(() => this.app.Send(id, text, key));
    return this.call(() => this.app.SendWith(id, text, intent, key));
  }
  /** There is no bound method: the window asks in a native dialog. */
  answer(_id: string, _callIds: string[], _allowed: boolean, _feedback: string): Promise<void> {
    return Promise.reject(new Error(ANSWER_IN_DIALOG));
  }
  async cancel(id: string): Promise<void> {
    await this.call(() => this.app.Cancel(id));
  }
  editMessage(id: string, seq: number, text: string, key: string): Promise<BranchResult> {
    return this.call(() => this.app.EditMessage(id, seq, text, key));
  }
  regenerate(id: string, seq: number, key: string): Promise<BranchResult> {
    return this.call(() => this.app.Regenerate(id, seq, key));
  }
  continueRun(id: string, key: string): Promise<string> {
    return this.call(() => this.app.ContinueRun(id, key));
  }
  async reportView(snapshot: ViewSnapshot): Promise<boolean> {
    // Go does not gate the test probe: it must show what a failed handshake looks like.
    return (await this.call(() => this.app.ReportView(snapshot), false)) !== false;
  }
  /** NotesFolder(); like Doctor, it does not wait for the handshake (Go does not gate it). */
  async notesFolder(): Promise<string> {
    const r = await this.call(() => this.app.NotesFolder(), false);
    return typeof r === 'string' ? r : '';
  }
  /** ChooseNotesFolder(): the native dialog asks, so `path` is ignored. "" when cancelled. */
  async chooseNotesFolder(_path?: string): Promise<string> {
    const r = await this.call(() => this.app.ChooseNotesFolder(), false);
    return typeof r === 'string' ? r : '';
  }
  /** SaveSettings answers a refused setting as `refused` (a bound method rejects only with text). */
  async saveSettings(u: UserSettings): Promise<SettingsScreen> {
    const r = await this.call(() => this.app.SaveSettings(u as Parameters<Bound['SaveSettings']>[0]));
    if (r?.refused) throw new SettingRefused(r.refused.field, r.refused.message);
    if (!r?.screen) throw new Error('Quire did not say whether the settings were saved; open Settings again.');
    return settingsScreen(r.screen);
  }
  /** Go opens the native save dialog and writes the file there. */
  async exportSession(id: string, format: ExportFormat): Promise<Exported> {
    const file = await this.call(() => this.app.ExportSession(id, format));
    return file ? { file, saved: true } : null;
  }

  subscribeIndexing(onProgress: (p: IndexProgress) => void, onDropError?: (sentence: string) => void): () => void {
    const rt = this.runtime;
    if (!rt?.EventsOnMultiple) return () => {};
    const offs = [
      rt.EventsOnMultiple(RuntimeEvent.Indexing, (p: unknown) => p && typeof p === 'object' && onProgress(p as IndexProgress), -1),
      rt.EventsOnMultiple(RuntimeEvent.DropError, (s: unknown) => onDropError?.(String(s)), -1),
    ];
    return () => offs.forEach((off) => typeof off === 'function' && off());
  }
  subscribePulls(onProgress: (p: PullProgress) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(RuntimeEvent.Pull, (p: unknown) => p && typeof p === 'object' && onProgress(p as PullProgress), -1);
    return () => typeof off === 'function' && off();
  }
  subscribeBatches(onProgress: (p: BatchProgress) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(RuntimeEvent.Batch, (p: unknown) => p && typeof p === 'object' && (p as BatchProgress).batch && onProgress(p as BatchProgress), -1);
    return () => typeof off === 'function' && off();
  }
  subscribeMcp(onServer: (s: McpServer) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(RuntimeEvent.Mcp, (s: unknown) => !!s && typeof s === 'object' && 'config' in s && onServer(mcpServer(s as MCPServer)), -1);
    return () => typeof off === 'function' && off();
  }
  subscribeEvaluations(onJob: (j: EvaluationJob) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(
      RuntimeEvent.Evaluation,
      (j: unknown) => !!j && typeof j === 'object' && 'candidate' in j && onJob(evaluationJob(j as EvaluationJob)),
      -1,
    );
    return () => typeof off === 'function' && off();
  }

  subscribeHealth(onReport: (r: DoctorReport) => void): () => void {
    const rt = this.runtime;
    if (!rt?.EventsOnMultiple) return () => {};
    const off = rt.EventsOnMultiple(
      RuntimeEvent.Health,
      (r: unknown) => r && typeof r === 'object' && Array.isArray((r as DoctorReport).checks) && onReport(r as DoctorReport),
      -1,
    );
    return () => typeof off === 'function' && off();
  }

  subscribeQuestions(onQuestion: (q: Question) => void): () => void {
    const rt = this.runtime;
    if (!rt?.EventsOnMultiple) return () => {};
    let live = true;
    const take = (q: unknown) => {
      if (live && q && typeof q === 'object' && typeof (q as Question).id === 'string') onQuestion(q as Question);
    };
    const off = rt.EventsOnMultiple(RuntimeEvent.Question, take, -1);
    // A question sent before this page subscribed (a reload) is still open in Go.
    this.call(() => this.app.Questions()).then((qs) => (qs ?? []).forEach(take), () => {});
    return () => {
      live = false;
      if (typeof off === 'function') off();
    };
  }
  async questionShown(id: string): Promise<void> {
    await this.call(() => this.app.QuestionShown(id));
  }

  /**
   * Each update comes with its delivery number, which the page sends back
   * (RuntimeEvent.Taken) once handled: the window sends a page that falls
   * too far behind nothing more until it has caught up, then
   * RuntimeEvent.Resync, and the page reloads from its last seq.
   * RuntimeEvent.Listening first tells the window the page counts from now.
   */
  subscribe(
    onEvents: (e: QEvent[]) => void,
    onSessions: (s: Session[]) => void,
    onResync?: () => void,
  ): () => void {
    const rt = this.runtime;
    if (!rt?.EventsOnMultiple) return () => {};
    // Best effort: a runtime that cannot send (a stand-in without
    // EventsEmit) leaves the page uncounted, as an older page is: Go counts
    // nothing until it hears RuntimeEvent.Listening.
    const tell = (name: string, ...data: unknown[]) => {
      try {
        rt.EventsEmit?.(name, ...data);
      } catch {
        /* see above */
      }
    };
    const taken = (n: unknown) => {
      if (typeof n === 'number') tell(RuntimeEvent.Taken, n);
    };
    // Each runtime event carries the batch / the whole list, then its number.
    const offEvents = rt.EventsOnMultiple(
      RuntimeEvent.Events,
      (batch: unknown, n: unknown) => {
        onEvents(Array.isArray(batch) ? (batch as QEvent[]) : []);
        taken(n);
      },
      -1,
    );
    const offSessions = rt.EventsOnMultiple(
      RuntimeEvent.Sessions,
      (list: unknown, n: unknown) => {
        onSessions(Array.isArray(list) ? (list as Session[]) : []);
        taken(n);
      },
      -1,
    );
    const offResync = rt.EventsOnMultiple(RuntimeEvent.Resync, () => onResync?.(), -1);
    tell(RuntimeEvent.Listening);
    return () => {
      for (const off of [offEvents, offSessions, offResync]) if (typeof off === 'function') off();
    };
  }
}
