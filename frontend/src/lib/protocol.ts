// Types of the host protocol v1.0 (docs/PROTOCOL.md). The Go twin lives in
// kernel/protocol. Keep both in step: a field renamed here and not there is a
// silent blank in the UI.

export const PROTOCOL_VERSION = '1.0';

/**
 * HTTP header that carries PROTOCOL_VERSION on every /api/ request; without a
 * compatible one `quire serve` answers 426. The stream, which cannot carry
 * headers, sends the same as the query parameter PROTOCOL_QUERY.
 */
export const PROTOCOL_HEADER = 'Quire-Protocol';
export const PROTOCOL_QUERY = 'protocol';
/** HTTP header that makes a send safe to repeat (docs/PROTOCOL.md). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

export type Visibility = 'public' | 'internal' | 'sensitive';

/** One entry of a session's log. `seq` is per session, from 0, without gaps. */
export interface QEvent {
  session: string;
  seq: number;
  type: string;
  time: string; // RFC 3339
  runId?: string;
  visibility: Visibility;
  /** Seqs of earlier events of the same session this one refers to. */
  sources?: number[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  payload: any;
}

/** What a session's run is doing (Session.runStatus). */
export type RunStatus = 'idle' | 'streaming' | 'awaiting-permission' | 'executing-tools' | 'closing';

export interface Session {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  lastSeq: number;
  running: boolean;
  /** Whether the kernel has the session attached ('attached' | 'detached'); optional. */
  status?: string;
  /** What its run is doing; optional (older hosts leave it out). */
  runStatus?: RunStatus;
  /** A branch: the session it forks from, and the last seq of that session it keeps. */
  parent?: string;
  parentSeq?: number;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  remedy?: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

// Payloads of the event types a frontend renders (kernel/event/types.go).
export interface SessionTitlePayload {
  title: string;
}

/**
 * When a message is taken up: 'follow_up' the next request (queued while one
 * is going), 'steer' the next step of the request that is going, 'inject' the
 * next step whenever it comes, without starting one.
 */
export type Intent = 'follow_up' | 'steer' | 'inject';

/** An input arrived; it may wait in a queue until a step takes it up (user.message). */
export interface InputReceivedPayload {
  inputId: string;
  intent: Intent;
  text: string;
  /** The run this input opens, if it opens one. */
  runId?: string;
  caps?: unknown;
}
/** The user's words as the model sees them: logged when a step takes the input up. */
export interface UserMessagePayload {
  text: string;
  inputId?: string;
  intent?: Intent;
}
export interface RunStartedPayload {
  model: string;
  /** The input that opened the run. */
  inputId?: string;
}
export interface StepStartedPayload {
  step: number;
  inputIds?: string[];
}
export interface AssistantDeltaPayload {
  content?: string;
  thinking?: string;
}
export interface Usage {
  promptTokens: number;
  outputTokens: number;
  durationNs: number;
}
/** A call the model asked for; `arguments` is the model's JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}
export interface AssistantMessagePayload {
  step?: number;
  content: string;
  thinking?: string;
  toolCalls?: ToolCall[];
  doneReason: string;
  model: string;
  usage: Usage;
  /** Cut off by a cancel or a failure: what the user saw is kept. */
  interrupted?: boolean;
}
export interface ToolStartedPayload {
  callId: string;
  name: string;
}
export type ToolResultStatus = 'success' | 'failure' | 'partial' | 'empty' | 'cancelled';
export interface ToolResultPayload {
  callId: string;
  name: string;
  status?: ToolResultStatus;
  /** What the model sees. */
  content: string;
  /** The structured result (any JSON value), for the UI and replay. */
  data?: unknown;
  durationNs?: number;
  attempts?: number;
}
/** unknown_completion: dispatched before a crash; it may or may not have happened. */
export type ToolRefusedStatus = 'denied' | 'cancelled' | 'failure' | 'unknown_completion';
export interface ToolRefusedPayload {
  callId: string;
  name: string;
  status: ToolRefusedStatus;
  /** A sentence; the model sees it as the call's result. */
  reason: string;
}
/** The figures a compaction judged by (kernel/event Pollution). */
export interface Pollution {
  tokens: number;
  window: number;
  fill: number;
  topSource?: string;
  topSourceShare: number;
  duplicateRatio: number;
  lowValueShare: number;
  index: number;
}
/** Why and how a compaction replaced a range (kernel/event CompactionRecord). */
export interface CompactionRecord {
  strategy: string;
  trigger: string;
  figures: Pollution;
  beforeTokens: number;
  afterTokens: number;
  dropped?: string[];
}
/** In what the model sees, events from..to are replaced by summary; the originals stay in the log. */
export interface HistoryReplacePayload {
  from: number;
  to: number;
  summary: string;
  compaction?: CompactionRecord;
}
export interface PermissionRequestedPayload {
  calls: ToolCall[];
  /** Unix time in nanoseconds when the default answer is given; 0 when none. */
  deadlineNs: number;
}
export interface PermissionAnsweredPayload {
  callIds: string[];
  allowed: boolean;
  feedback?: string;
  /** Nobody answered in time: the default answer. */
  byDefault?: boolean;
}
export type FinishReason =
  | 'completed'
  | 'cancelled'
  | 'denied'
  | 'nothing-to-do'
  | 'error'
  | 'max-steps'
  | 'max-tool-calls'
  | 'budget'
  | 'loop'
  | 'interrupted';
export interface RunFinishedPayload {
  reason: FinishReason;
  /** A sentence for the user (error, and every reason but completed/cancelled/nothing-to-do). */
  error?: string;
}

// The `data` of some tools' results (tool.result payload.data), which the
// page renders as more than text (src/lib/toolcard.ts). Go: tools/todo,
// tools/notes.

/** One entry of the assistant's plan. */
export interface TodoItem {
  text: string;
  done: boolean;
}
/** update_todos: the whole plan for the request (the latest one is the plan). */
export interface TodoPlan {
  items: TodoItem[];
}
/** report_state: the assistant says it is unsure, in its own words. */
export interface StateReport {
  state: string;
  plan?: string;
  confusion?: string;
}
/**
 * What a Change did: 'write' (a note's text went from `before` to `after`;
 * null: the note did not exist), 'move' (`from` → `path`), 'mkdir' / 'rmdir'
 * (the folder `path`).
 */
export type ChangeKind = 'write' | 'move' | 'mkdir' | 'rmdir';
/**
 * One change by a note tool (create_note, append_note, edit_note, move_note,
 * make_folder, set_tags, link_notes, undo): the `data` of its result. Paths are
 * relative to the notes folder, with '/'. The undo tool takes `id` back.
 */
export interface NoteChange {
  id: string;
  /** The tool that made it. */
  tool: string;
  kind: ChangeKind;
  path: string;
  /** A move's source. */
  from?: string;
  before?: string | null;
  after?: string | null;
  /** Set by undo: the change it reverted. */
  undoes?: string;
}

/** The kinds of memory: working memory of one conversation, long-term facts, preferences. */
export type MemoryKind = 'working' | 'fact' | 'preference';

/** One remembered item (GET /api/memory, MemoryList()). */
export interface MemoryItem {
  id: string;
  kind: MemoryKind;
  /** For working memory: 'conclusion' | 'open' | 'attempt'. */
  note?: string;
  text: string;
  /** 'kept', or 'pending' until the user approves it. */
  status: 'kept' | 'pending';
  /** Who wrote it: 'tool' (the model), 'proposal' (after a run), 'auto', 'user', 'compaction'. */
  origin: string;
  /** The conversation it came from, and the event in it. */
  session: string;
  seq: number;
  /** Seqs of the memory events that shaped it, and of the events it was drawn from. */
  events: number[];
  sources: number[];
  createdAt: string;
  updatedAt: string;
}

/** Every item and the memory settings. */
export interface MemoryList {
  items: MemoryItem[];
  /** New long-term items wait for the user's approval. */
  approval: boolean;
  /** After each reply the model is asked what is worth remembering. */
  learn: boolean;
}

/** GET / PUT /api/settings. */
export interface Settings {
  /** Absolute path of the notes folder; "" until chosen. */
  notesDir: string;
}

/** The event types this frontend folds; anything else is ignored. */
export const EventType = {
  SessionCreated: 'session.created',
  SessionRenamed: 'session.renamed',
  InputReceived: 'input.received',
  UserMessage: 'user.message',
  RunStarted: 'run.started',
  StepStarted: 'step.started',
  AssistantDelta: 'assistant.delta',
  AssistantMessage: 'assistant.message',
  ToolStarted: 'tool.started',
  ToolResult: 'tool.result',
  ToolRefused: 'tool.refused',
  PermissionRequested: 'permission.requested',
  PermissionAnswered: 'permission.answered',
  RunFinished: 'run.finished',
  HistoryReplace: 'history.replace',
} as const;

/** Wails runtime event names (EventsOn). */
export const RuntimeEvent = {
  Events: 'quire:events',
  Sessions: 'quire:sessions',
  /** IndexProgress, whenever it changes. */
  Indexing: 'quire:indexing',
  /** A sentence: files dropped on the window that could not be queued. */
  DropError: 'quire:drop-error',
} as const;

// The documents panel (Go: kernel/protocol/documents.go).

/** Where background indexing is. */
export type IndexPhase = 'idle' | 'scanning' | 'indexing' | 'done' | 'cancelled' | 'failed';

/** How background indexing is going; counts are files of the current (or last) pass. */
export interface IndexProgress {
  running: boolean;
  phase: IndexPhase;
  total: number;
  done: number;
  failed: number;
  /** Files under the named paths that cannot be read and are not counted in total (an unsupported format). */
  refused?: number;
  currentFile?: string;
  /** Estimated time left in ms; 0 when unknown. */
  etaMs: number;
  /** What the pass was asked to index; absent = every known folder. */
  paths?: string[];
  /** A sentence, for phase 'failed'. */
  error?: string;
  /** Passes waiting behind this one. */
  queued: number;
}

export type DocumentStatus = 'queued' | 'parsed' | 'embedded' | 'done' | 'failed';

/** One file in the index. */
export interface DocumentInfo {
  path: string;
  /** The path shown: relative to the parent of its watched folder. */
  name: string;
  root: string;
  format?: string;
  status: DocumentStatus;
  reason?: string;
  chunks: number;
  size: number;
  updated: string;
}

/** Everything the documents panel shows (GET /api/documents, Documents()). */
export interface DocumentsState {
  /** "ollama:nomic-embed-text" or "built-in offline embedder (…)". */
  embedder: string;
  offline: boolean;
  vectorError?: string;
  roots: string[];
  documents: DocumentInfo[];
  progress: IndexProgress;
}

/** An indexed document's text for the viewer; a PDF's one page. */
export interface DocumentSource {
  path: string;
  name: string;
  format: string;
  page?: number;
  pages?: number;
  text: string;
}

/** search_docs: one numbered passage (tools/searchdocs Citation). */
export interface Citation {
  n: number;
  path: string;
  name: string;
  headings?: string[];
  startLine: number;
  endLine: number;
  snippet: string;
  score: number;
  lexicalRank: number;
  vectorRank: number;
}
/** search_docs: the `data` of its result. */
export interface SearchDocsData {
  query: string;
  embedder: string;
  hits: Citation[];
}

/** What the test probe (ReportView / POST /api/probe) receives. */
export interface ViewSnapshot {
  activeSession: string | null;
  sessionTitles: string[];
  messages: { role: 'user' | 'assistant' | 'error' | 'notice'; text: string }[];
  banner: string | null;
  streaming: boolean;
  /** The documents panel's rows, when it is open. */
  documents?: { name: string; status: string; reason: string }[];
  /** The indexing bar, when shown. */
  indexing?: { phase: string; done: number; total: number; label: string } | null;
  /** The text of every citation link on screen ("[1]"), in document order. */
  citations?: string[];
  /** Where each of those links is: its centre in CSS pixels of the viewport (a test clicks it). */
  citationPoints?: { x: number; y: number }[];
  /** The source viewer, when open: the document and the highlighted lines. */
  viewer?: { name: string; start: number; end: number; highlighted: string } | null;
  /** The memory panel's items while it is open (absent when it is closed). */
  memory?: { kind: string; status: string; text: string }[];
}
