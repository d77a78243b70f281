// Transport inside the Wails window: the generated bindings of the Go `App`
// (frontend/wailsjs/go/main/App.js, written by `make bindings` from app.go;
// test/bindings fails when they are stale) and the generated runtime's events
// (frontend/wailsjs/runtime). Shapes: docs/PROTOCOL.md.
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
import type { Batch, BatchDecision, BatchProgress, BatchReview, BranchResult, Call, CallList, DoctorReport, DocumentSource, DocumentsState, Intent, IndexProgress, MemoryItem, MemoryList, MessageSearch, ModelsState, OllamaCheck, PullProgress, QEvent, Question, Session, SettingsSaved, SettingsScreen, SkillInfo, SkillList, StandingFiring, StandingSummary, StandingTask, UserSettings, ViewSnapshot } from '../protocol';
import { callDetail, callList, NO_CALLS } from './calls';
import { messageSearch, NO_EXPORT, NO_SEARCH, type ExportFormat, type Exported } from './conversations';
import { batchReview, NO_BATCH_FOLDER, NO_BATCHES } from './batches';
import { mcpImport, mcpList, mcpServer, NO_MCP, type MCPAction, type McpImport, type McpList, type McpServer } from './mcp';
import { candidate, candidateDetail, evaluationJob, evolutionState, NO_EVOLUTION } from './evolution';
import type { Activation, Approval, Candidate, CandidateDetail, CandidateDraft, EvaluationJob, EvolutionState } from '../protocol';
import { NO_SKILL_FOLDER, NO_SKILLS, skillList } from './skills';
import { NO_STANDING, standingList } from './standing';
import { modelsState, NO_MODEL_NAME, NO_MODELS } from './models';
import { changeList, NO_NOTES, noteFolder, noteLinks, undoOutcome } from './notes';
import type { MCPImport, MCPList, MCPServer, MCPServerConfig, MCPToolChoice } from '../protocol';
import type { ChangeList, NoteFolder, NoteLinks, NoteText, NoteVersions, UndoOutcome, WritePreview } from '../protocol';
import { NO_SETTINGS, SettingRefused, settingsScreen } from './settings';
import { PROTOCOL_VERSION, RuntimeEvent } from '../protocol';
import { memoryList, NO_MEMORY, toError, type Transport } from './transport';

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
  /**
   * Send with an intent ('follow_up' | 'steer' | 'inject'); used when it is
   * not follow_up. Optional: an older Quire has no SendWith.
   */
  SendWith?: Method<'SendWith', string>;
  Cancel: Method<'Cancel', void>;
  /** message.edit, message.regenerate, run.continue. Optional: an older Quire has none. */
  EditMessage?: Method<'EditMessage', BranchResult>;
  Regenerate?: Method<'Regenerate', BranchResult>;
  ContinueRun?: Method<'ContinueRun', string>;
  /** Whether a probe is set; an older Quire answers nothing (taken as yes). */
  ReportView: Method<'ReportView', boolean | void>;
  /** The notes folder, "" until chosen. Needs no handshake. Optional: an older Quire has none. */
  NotesFolder?: Method<'NotesFolder', string>;
  /**
   * Opens the native folder dialog and remembers the choice: resolves with
   * the folder, or "" when cancelled; rejects with a sentence. Needs no
   * handshake. Optional: an older Quire has none.
   */
  ChooseNotesFolder?: Method<'ChooseNotesFolder', string>;
  // The documents panel (app_docs.go). Optional: an older Quire has none.
  Documents?: Method<'Documents', DocumentsState>;
  IndexPaths?: Method<'IndexPaths', void>;
  CancelIndexing?: Method<'CancelIndexing', void>;
  RetryDocument?: Method<'RetryDocument', void>;
  RemoveDocument?: Method<'RemoveDocument', void>;
  SetEmbedModel?: Method<'SetEmbedModel', void>;
  DocumentSource?: Method<'DocumentSource', DocumentSource>;
  /** The memory panel's methods. Optional: an older Quire has none. */
  MemoryList?: Method<'MemoryList', MemoryList>;
  EditMemory?: Method<'EditMemory', MemoryItem>;
  ForgetMemory?: Method<'ForgetMemory', void>;
  ReviewMemory?: Method<'ReviewMemory', void>;
  SetMemoryApproval?: Method<'SetMemoryApproval', void>;
  SetMemoryLearning?: Method<'SetMemoryLearning', void>;
  /** The models screen's methods (app.go). Optional: an older Quire has none. */
  /** The Settings screen. Optional: an older Quire has none. */
  Settings?: Method<'Settings', SettingsScreen>;
  SaveSettings?: Method<'SaveSettings', SettingsSaved>;
  CheckOllama?: Method<'CheckOllama', OllamaCheck>;
  Models?: Method<'Models', ModelsState>;
  PullModel?: Method<'PullModel', void>;
  CancelPull?: Method<'CancelPull', void>;
  DeleteModel?: Method<'DeleteModel', void>;
  /** The notes panel's methods (app.go). Optional: an older Quire has none. */
  NotesTree?: Method<'NotesTree', NoteFolder>;
  NoteText?: Method<'NoteText', NoteText>;
  NoteChanges?: Method<'NoteChanges', ChangeList>;
  UndoChange?: Method<'UndoChange', UndoOutcome>;
  UndoConversation?: Method<'UndoConversation', UndoOutcome>;
  NoteVersions?: Method<'NoteVersions', NoteVersions>;
  NoteLinks?: Method<'NoteLinks', NoteLinks>;
  PreviewWrite?: Method<'PreviewWrite', WritePreview>;
  /** The inspector's methods (app.go). Optional: an older Quire has none. */
  Calls?: Method<'Calls', CallList>;
  Call?: Method<'Call', Call>;
  CallRequest?: Method<'CallRequest', string>;
  /**
   * The batches (app.go). ApplyBatch and UndoBatch ask in a native dialog
   * first and resolve with the batch unchanged on No. Optional: an older
   * Quire has none.
   */
  /** Settings → Skills (app.go). Optional: an older Quire has none. */
  Skills?: Method<'Skills', SkillList>;
  SetSkillEnabled?: Method<'SetSkillEnabled', void>;
  InstallSkill?: Method<'InstallSkill', SkillInfo>;
  /** The Standing tasks panel (app.go). Optional: an older Quire has none. */
  StandingTasks?: Method<'StandingTasks', StandingSummary[] | null>;
  AddStandingTask?: Method<'AddStandingTask', StandingSummary>;
  EditStandingTask?: Method<'EditStandingTask', StandingSummary>;
  PauseStandingTask?: Method<'PauseStandingTask', StandingSummary>;
  RemoveStandingTask?: Method<'RemoveStandingTask', void>;
  RunStandingTask?: Method<'RunStandingTask', StandingFiring>;
  Batches?: Method<'Batches', Batch[] | null>;
  BatchReview?: Method<'BatchReview', BatchReview>;
  StartBatch?: Method<'StartBatch', Batch>;
  PauseBatch?: Method<'PauseBatch', Batch>;
  ResumeBatch?: Method<'ResumeBatch', Batch>;
  CancelBatch?: Method<'CancelBatch', Batch>;
  ApplyBatch?: Method<'ApplyBatch', Batch>;
  UndoBatch?: Method<'UndoBatch', Batch>;
  /**
   * The MCP servers (app.go). SetMCPTool asks in a native dialog
   * before a loosening and resolves with the server unchanged on No.
   * Optional: an older Quire has none.
   */
  MCPServers?: Method<'MCPServers', MCPList>;
  PutMCPServer?: Method<'PutMCPServer', MCPServer>;
  RemoveMCPServer?: Method<'RemoveMCPServer', void>;
  ImportMCP?: Method<'ImportMCP', MCPImport>;
  ControlMCPServer?: Method<'ControlMCPServer', MCPServer>;
  SetMCPTool?: Method<'SetMCPTool', MCPServer>;
  /**
   * Evolution (app.go). ApproveCandidate, ActivateCandidate and
   * RollbackCandidate ask in a native dialog first and resolve with the
   * candidate unchanged on No. Optional: an older Quire has none.
   */
  Evolution?: Method<'Evolution', EvolutionState>;
  EvolutionCandidate?: Method<'EvolutionCandidate', CandidateDetail>;
  SetEvolutionLearning?: Method<'SetEvolutionLearning', EvolutionState>;
  ProposeCandidate?: Method<'ProposeCandidate', Candidate>;
  EvaluateCandidate?: Method<'EvaluateCandidate', EvaluationJob>;
  EvaluationJob?: Method<'EvaluationJob', EvaluationJob>;
  CancelEvaluation?: Method<'CancelEvaluation', EvaluationJob>;
  ApproveCandidate?: Method<'ApproveCandidate', Candidate>;
  RefuseCandidate?: Method<'RefuseCandidate', Candidate>;
  ActivateCandidate?: Method<'ActivateCandidate', Candidate>;
  RollbackCandidate?: Method<'RollbackCandidate', Candidate>;
  /** The questions the window is asking (to show them). Optional: an older Quire has none. */
  Questions?: Method<'Questions', Question[] | null>;
  /** The page has shown question `id` in full: its dialog may open. It cannot answer. */
  QuestionShown?: Method<'QuestionShown', void>;
  /** The search over every conversation and the export's save dialog. Optional: an older Quire has none. */
  SearchConversations?: Method<'SearchConversations', MessageSearch>;
  /** Resolves with the file saved, or "" when the user cancelled the dialog. */
  ExportSession?: Method<'ExportSession', string>;
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
/** Why the notes folder cannot be read or chosen inside an older Quire window. */
export const NO_NOTES_FOLDER = 'This Quire window cannot choose a notes folder; update Quire.';
/** Why the documents panel cannot work inside an older Quire window. */
export const NO_DOCUMENTS = 'This Quire window has no documents panel; update Quire.';
/** Why a steer fails inside an older Quire window (no SendWith). */
export const NO_SEND_WITH = 'This Quire window cannot add to a running request (it has no SendWith); update Quire.';
/** What a window without the branch commands says when asked to edit, regenerate or continue. */
export const NO_BRANCHES = 'This Quire window cannot edit, regenerate or continue messages; update Quire.';

export class WailsTransport implements Transport {
  readonly answersInPage = false;
  readonly choosesFolderInDialog = true;
  readonly takesFileDrops = true;
  readonly confirmsBatchInDialog = true;
  readonly confirmsLoosenInDialog = true;
  readonly confirmsEvolutionInDialog = true;
  private handshake: Promise<void> | null = null;

  /** In the window, `app` and `runtime` are `generatedApp` and `generatedRuntime`; tests hand in fakes. */
  constructor(
    private readonly app: WailsApp,
    private readonly runtime: WailsRuntime | undefined,
  ) {}

  /** The one Handshake of this transport, started by the first call that needs it. */
  private shakeHands(): Promise<void> {
    this.handshake ??= (async () => {
      if (typeof this.app.Handshake !== 'function') {
        throw new Error(
          `This Quire window has no Handshake: incompatible protocol version (the page speaks ${PROTOCOL_VERSION}); update Quire.`,
        );
      }
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
    return this.call(() => {
      if (typeof this.app.SendWith !== 'function') return Promise.reject(NO_SEND_WITH);
      return this.app.SendWith(id, text, intent, key);
    });
  }
  /** There is no bound method: the window asks in a native dialog. */
  answer(_id: string, _callIds: string[], _allowed: boolean, _feedback: string): Promise<void> {
    return Promise.reject(new Error(ANSWER_IN_DIALOG));
  }
  async cancel(id: string): Promise<void> {
    await this.call(() => this.app.Cancel(id));
  }
  editMessage(id: string, seq: number, text: string, key: string): Promise<BranchResult> {
    return this.call(() => (this.app.EditMessage ? this.app.EditMessage(id, seq, text, key) : Promise.reject(NO_BRANCHES)));
  }
  regenerate(id: string, seq: number, key: string): Promise<BranchResult> {
    return this.call(() => (this.app.Regenerate ? this.app.Regenerate(id, seq, key) : Promise.reject(NO_BRANCHES)));
  }
  continueRun(id: string, key: string): Promise<string> {
    return this.call(() => (this.app.ContinueRun ? this.app.ContinueRun(id, key) : Promise.reject(NO_BRANCHES)));
  }
  async reportView(snapshot: ViewSnapshot): Promise<boolean> {
    // Go does not gate the test probe: it must show what a failed handshake looks like.
    return (await this.call(() => this.app.ReportView(snapshot), false)) !== false;
  }

  /** NotesFolder(); like Doctor, it does not wait for the handshake (Go does not gate it). */
  async notesFolder(): Promise<string> {
    const r = await this.call(() => {
      if (typeof this.app.NotesFolder !== 'function') return Promise.reject(NO_NOTES_FOLDER);
      return this.app.NotesFolder();
    }, false);
    return typeof r === 'string' ? r : '';
  }
  /** ChooseNotesFolder(): the native dialog asks, so `path` is ignored. "" when cancelled. */
  async chooseNotesFolder(_path?: string): Promise<string> {
    const r = await this.call(() => {
      if (typeof this.app.ChooseNotesFolder !== 'function') return Promise.reject(NO_NOTES_FOLDER);
      return this.app.ChooseNotesFolder();
    }, false);
    return typeof r === 'string' ? r : '';
  }

  /** Calls a documents method if this window has it (an older one has not). */
  private docs<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_DOCUMENTS)));
  }
  async documents(): Promise<DocumentsState> {
    const r = await this.docs(this.app.Documents ? (a) => a.Documents!() : null);
    return { ...r, roots: r?.roots ?? [], documents: r?.documents ?? [] };
  }
  async indexPaths(paths: string[]): Promise<void> {
    await this.docs(this.app.IndexPaths ? (a) => a.IndexPaths!(paths) : null);
  }
  async cancelIndexing(): Promise<void> {
    await this.docs(this.app.CancelIndexing ? (a) => a.CancelIndexing!() : null);
  }
  async retryDocument(path: string): Promise<void> {
    await this.docs(this.app.RetryDocument ? (a) => a.RetryDocument!(path) : null);
  }
  async removeDocument(path: string): Promise<void> {
    await this.docs(this.app.RemoveDocument ? (a) => a.RemoveDocument!(path) : null);
  }
  async setEmbedModel(model: string): Promise<void> {
    await this.docs(this.app.SetEmbedModel ? (a) => a.SetEmbedModel!(model) : null);
  }
  documentSource(path: string, page = 0): Promise<DocumentSource> {
    return this.docs(this.app.DocumentSource ? (a) => a.DocumentSource!(path, page) : null);
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
  /** Calls a settings method the window may not have (an older Quire). */
  private set<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_SETTINGS)));
  }
  async settings(): Promise<SettingsScreen> {
    return settingsScreen(await this.set(this.app.Settings ? (a) => a.Settings!() : null));
  }
  /** SaveSettings answers a refused setting as `refused` (a bound method rejects only with text). */
  async saveSettings(u: UserSettings): Promise<SettingsScreen> {
    const r = await this.set(this.app.SaveSettings ? (a) => a.SaveSettings!(u as Parameters<Bound['SaveSettings']>[0]) : null);
    if (r?.refused) throw new SettingRefused(r.refused.field, r.refused.message);
    if (!r?.screen) throw new Error('Quire did not say whether the settings were saved; open Settings again.');
    return settingsScreen(r.screen);
  }
  async checkOllama(address: string): Promise<OllamaCheck> {
    const r = await this.set(this.app.CheckOllama ? (a) => a.CheckOllama!(address) : null);
    return { ...r, models: r.models ?? [] };
  }
  /** Calls an inspector method the window may not have (an older Quire). */
  private insp<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_CALLS)));
  }
  async calls(session: string, run?: string): Promise<CallList> {
    return callList(await this.insp(this.app.Calls ? (a) => a.Calls!(session, run ?? '') : null));
  }
  async modelCall(session: string, n: number): Promise<Call> {
    return callDetail(await this.insp(this.app.Call ? (a) => a.Call!(session, n) : null));
  }
  async callRequest(session: string, n: number): Promise<string> {
    return this.insp(this.app.CallRequest ? (a) => a.CallRequest!(session, n) : null);
  }
  /** Calls a models method the window may not have (an older Quire). */
  private mod<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_MODELS)));
  }
  async models(): Promise<ModelsState> {
    return modelsState(await this.mod(this.app.Models ? (a) => a.Models!() : null));
  }
  async pullModel(name: string): Promise<void> {
    const n = name.trim();
    if (!n) throw new Error(NO_MODEL_NAME);
    await this.mod(this.app.PullModel ? (a) => a.PullModel!(n) : null);
  }
  async cancelPull(name: string): Promise<void> {
    await this.mod(this.app.CancelPull ? (a) => a.CancelPull!(name) : null);
  }
  async deleteModel(name: string): Promise<void> {
    await this.mod(this.app.DeleteModel ? (a) => a.DeleteModel!(name) : null);
  }
  subscribePulls(onProgress: (p: PullProgress) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(RuntimeEvent.Pull, (p: unknown) => p && typeof p === 'object' && onProgress(p as PullProgress), -1);
    return () => typeof off === 'function' && off();
  }
  /** Calls a notes panel method the window may not have (an older Quire). */
  private notes<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_NOTES)));
  }
  async notesTree(path: string): Promise<NoteFolder> {
    return noteFolder(await this.notes(this.app.NotesTree ? (a) => a.NotesTree!(path) : null));
  }
  noteText(path: string): Promise<NoteText> {
    return this.notes(this.app.NoteText ? (a) => a.NoteText!(path) : null);
  }
  async noteChanges(): Promise<ChangeList> {
    return changeList(await this.notes(this.app.NoteChanges ? (a) => a.NoteChanges!() : null));
  }
  async undoChange(id: string): Promise<UndoOutcome> {
    return undoOutcome(await this.notes(this.app.UndoChange ? (a) => a.UndoChange!(id) : null));
  }
  async undoConversation(session: string, ids: string[]): Promise<UndoOutcome> {
    return undoOutcome(await this.notes(this.app.UndoConversation ? (a) => a.UndoConversation!(session, ids) : null));
  }
  noteVersions(id: string): Promise<NoteVersions> {
    return this.notes(this.app.NoteVersions ? (a) => a.NoteVersions!(id) : null);
  }
  async noteLinks(path: string): Promise<NoteLinks> {
    return noteLinks(await this.notes(this.app.NoteLinks ? (a) => a.NoteLinks!(path) : null), path);
  }
  previewWrite(tool: string, args: string): Promise<WritePreview> {
    return this.notes(this.app.PreviewWrite ? (a) => a.PreviewWrite!(tool, args) : null);
  }
  /** Calls a skills method the window may not have (an older Quire). */
  private sk<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_SKILLS)));
  }
  async skills(): Promise<SkillList> {
    return skillList(await this.sk(this.app.Skills ? (a) => a.Skills!() : null));
  }
  async setSkillEnabled(name: string, on: boolean): Promise<void> {
    await this.sk(this.app.SetSkillEnabled ? (a) => a.SetSkillEnabled!(name, on) : null);
  }
  async installSkill(dir: string): Promise<SkillInfo> {
    const d = dir.trim();
    if (!d) throw new Error(NO_SKILL_FOLDER);
    return this.sk(this.app.InstallSkill ? (a) => a.InstallSkill!(d) : null);
  }
  /** Calls a standing tasks method the window may not have (an older Quire). */
  private st<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_STANDING)));
  }
  async standingTasks(): Promise<StandingSummary[]> {
    return standingList(await this.st(this.app.StandingTasks ? (a) => a.StandingTasks!() : null));
  }
  addStandingTask(t: StandingTask): Promise<StandingSummary> {
    return this.st(this.app.AddStandingTask ? (a) => a.AddStandingTask!(t as Parameters<Bound['AddStandingTask']>[0]) : null);
  }
  editStandingTask(t: StandingTask): Promise<StandingSummary> {
    return this.st(this.app.EditStandingTask ? (a) => a.EditStandingTask!(t as Parameters<Bound['EditStandingTask']>[0]) : null);
  }
  pauseStandingTask(id: string, paused: boolean): Promise<StandingSummary> {
    return this.st(this.app.PauseStandingTask ? (a) => a.PauseStandingTask!(id, paused) : null);
  }
  async removeStandingTask(id: string): Promise<void> {
    await this.st(this.app.RemoveStandingTask ? (a) => a.RemoveStandingTask!(id) : null);
  }
  runStandingTask(id: string): Promise<StandingFiring> {
    return this.st(this.app.RunStandingTask ? (a) => a.RunStandingTask!(id) : null);
  }
  /** Calls a batches method the window may not have (an older Quire). */
  private bat<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_BATCHES)));
  }
  async batches(): Promise<Batch[]> {
    return (await this.bat(this.app.Batches ? (a) => a.Batches!() : null)) ?? [];
  }
  async batch(id: string): Promise<BatchReview> {
    return batchReview(await this.bat(this.app.BatchReview ? (a) => a.BatchReview!(id) : null));
  }
  async startBatch(folder: string): Promise<Batch> {
    const f = folder.trim();
    if (!f) throw new Error(NO_BATCH_FOLDER);
    return this.bat(this.app.StartBatch ? (a) => a.StartBatch!(f) : null);
  }
  pauseBatch(id: string): Promise<Batch> {
    return this.bat(this.app.PauseBatch ? (a) => a.PauseBatch!(id) : null);
  }
  resumeBatch(id: string): Promise<Batch> {
    return this.bat(this.app.ResumeBatch ? (a) => a.ResumeBatch!(id) : null);
  }
  cancelBatch(id: string): Promise<Batch> {
    return this.bat(this.app.CancelBatch ? (a) => a.CancelBatch!(id) : null);
  }
  /** Go asks in a native dialog first: the batch comes back unchanged (reviewing) when the user said No. */
  applyBatch(id: string, d: BatchDecision): Promise<Batch> {
    return this.bat(this.app.ApplyBatch ? (a) => a.ApplyBatch!(id, d as Parameters<Bound['ApplyBatch']>[1]) : null);
  }
  undoBatch(id: string): Promise<Batch> {
    return this.bat(this.app.UndoBatch ? (a) => a.UndoBatch!(id) : null);
  }
  subscribeBatches(onProgress: (p: BatchProgress) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(RuntimeEvent.Batch, (p: unknown) => p && typeof p === 'object' && (p as BatchProgress).batch && onProgress(p as BatchProgress), -1);
    return () => typeof off === 'function' && off();
  }  /** Calls an MCP method the window may not have (an older Quire). */
  private mcp<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_MCP)));
  }
  async mcpServers(): Promise<McpList> {
    return mcpList(await this.mcp(this.app.MCPServers ? (a) => a.MCPServers!() : null));
  }
  async putMcpServer(c: MCPServerConfig): Promise<McpServer> {
    return mcpServer(await this.mcp(this.app.PutMCPServer ? (a) => a.PutMCPServer!(c as Parameters<Bound['PutMCPServer']>[0]) : null));
  }
  async removeMcpServer(name: string): Promise<void> {
    await this.mcp(this.app.RemoveMCPServer ? (a) => a.RemoveMCPServer!(name) : null);
  }
  async importMcp(text: string): Promise<McpImport> {
    return mcpImport(await this.mcp(this.app.ImportMCP ? (a) => a.ImportMCP!(text) : null));
  }
  async controlMcpServer(name: string, action: MCPAction): Promise<McpServer> {
    return mcpServer(await this.mcp(this.app.ControlMCPServer ? (a) => a.ControlMCPServer!(name, action) : null));
  }
  async setMcpTool(c: MCPToolChoice): Promise<McpServer> {
    return mcpServer(await this.mcp(this.app.SetMCPTool ? (a) => a.SetMCPTool!(c as Parameters<Bound['SetMCPTool']>[0]) : null));
  }
  subscribeMcp(onServer: (s: McpServer) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(RuntimeEvent.Mcp, (s: unknown) => !!s && typeof s === 'object' && 'config' in s && onServer(mcpServer(s as MCPServer)), -1);
    return () => typeof off === 'function' && off();
  }

  /** Calls an evolution method the window may not have (an older Quire). */
  private evo<T>(f: ((app: WailsApp) => Promise<T>) | null): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_EVOLUTION)));
  }
  async evolution(): Promise<EvolutionState> {
    return evolutionState(await this.evo(this.app.Evolution ? (a) => a.Evolution!() : null));
  }
  async setEvolutionLearning(on: boolean): Promise<EvolutionState> {
    return evolutionState(await this.evo(this.app.SetEvolutionLearning ? (a) => a.SetEvolutionLearning!(on) : null));
  }
  async candidate(id: string): Promise<CandidateDetail> {
    return candidateDetail(await this.evo(this.app.EvolutionCandidate ? (a) => a.EvolutionCandidate!(id) : null));
  }
  async proposeCandidate(d: CandidateDraft): Promise<Candidate> {
    return candidate(await this.evo(this.app.ProposeCandidate ? (a) => a.ProposeCandidate!(d as Parameters<Bound['ProposeCandidate']>[0]) : null));
  }
  async evaluateCandidate(id: string): Promise<EvaluationJob> {
    return evaluationJob(await this.evo(this.app.EvaluateCandidate ? (a) => a.EvaluateCandidate!(id) : null));
  }
  async evaluationJob(id: string): Promise<EvaluationJob> {
    return evaluationJob(await this.evo(this.app.EvaluationJob ? (a) => a.EvaluationJob!(id) : null));
  }
  async cancelEvaluation(id: string): Promise<EvaluationJob> {
    return evaluationJob(await this.evo(this.app.CancelEvaluation ? (a) => a.CancelEvaluation!(id) : null));
  }
  subscribeEvaluations(onJob: (j: EvaluationJob) => void): () => void {
    const off = this.runtime?.EventsOnMultiple?.(
      RuntimeEvent.Evaluation,
      (j: unknown) => !!j && typeof j === 'object' && 'candidate' in j && onJob(evaluationJob(j as EvaluationJob)),
      -1,
    );
    return () => typeof off === 'function' && off();
  }
  /** Go asks in a native dialog first: the candidate comes back unchanged when the user said No. */
  async approveCandidate(id: string, ap: Approval): Promise<Candidate> {
    return candidate(await this.evo(this.app.ApproveCandidate ? (a) => a.ApproveCandidate!(id, ap as Parameters<Bound['ApproveCandidate']>[1]) : null));
  }
  async refuseCandidate(id: string, reason: string): Promise<Candidate> {
    return candidate(await this.evo(this.app.RefuseCandidate ? (a) => a.RefuseCandidate!(id, reason) : null));
  }
  async activateCandidate(id: string, ac: Activation): Promise<Candidate> {
    return candidate(await this.evo(this.app.ActivateCandidate ? (a) => a.ActivateCandidate!(id, ac as Parameters<Bound['ActivateCandidate']>[1]) : null));
  }
  async rollbackCandidate(id: string): Promise<Candidate> {
    return candidate(await this.evo(this.app.RollbackCandidate ? (a) => a.RollbackCandidate!(id) : null));
  }
  /** Calls a memory method the window may not have (an older Quire). */
  private mem<T>(f: ((app: WailsApp) => Promise<T>) | undefined): Promise<T> {
    return this.call(() => (f ? f(this.app) : Promise.reject(NO_MEMORY)));
  }
  async searchConversations(query: string, limit = 0): Promise<MessageSearch> {
    const f = this.app.SearchConversations;
    if (typeof f !== 'function') throw new Error(NO_SEARCH);
    return messageSearch(await this.call(() => f.call(this.app, query, limit)), query);
  }
  /** Go opens the native save dialog and writes the file there. */
  async exportSession(id: string, format: ExportFormat): Promise<Exported> {
    const f = this.app.ExportSession;
    if (typeof f !== 'function') throw new Error(NO_EXPORT);
    const file = await this.call(() => f.call(this.app, id, format));
    return file ? { file, saved: true } : null;
  }
  async memory(): Promise<MemoryList> {
    const f = this.app.MemoryList;
    return memoryList(await this.mem(f && ((a) => f.call(a))));
  }
  editMemory(id: string, text: string): Promise<MemoryItem> {
    const f = this.app.EditMemory;
    return this.mem(f && ((a) => f.call(a, id, text)));
  }
  async forgetMemory(id: string): Promise<void> {
    const f = this.app.ForgetMemory;
    await this.mem(f && ((a) => f.call(a, id)));
  }
  async reviewMemory(id: string, approve: boolean): Promise<void> {
    const f = this.app.ReviewMemory;
    await this.mem(f && ((a) => f.call(a, id, approve)));
  }
  async setMemorySettings(s: { approval?: boolean; learn?: boolean }): Promise<MemoryList> {
    const { SetMemoryApproval: approval, SetMemoryLearning: learn } = this.app;
    if (s.approval !== undefined) await this.mem(approval && ((a) => approval.call(a, s.approval!)));
    if (s.learn !== undefined) await this.mem(learn && ((a) => learn.call(a, s.learn!)));
    return this.memory();
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
    const list = this.app.Questions;
    if (typeof list === 'function') {
      this.call(() => list.call(this.app)).then((qs) => (qs ?? []).forEach(take), () => {});
    }
    return () => {
      live = false;
      if (typeof off === 'function') off();
    };
  }
  async questionShown(id: string): Promise<void> {
    const f = this.app.QuestionShown;
    if (typeof f !== 'function') return;
    await this.call(() => f.call(this.app, id));
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
