// The host protocol v1.0 (docs/PROTOCOL.md), as the frontend reads it.
//
// Every type whose JSON comes from Go is generated from the Go type
// (./generated/protocol.ts, by buildkit/contract: run `make generate` after
// changing one) and re-exported here; a Go change the frontend has not
// followed fails `npm run check`. What stays below is the frontend's own:
// the HTTP header names, the Wails runtime event names, the settings body
// and the snapshot the page reports to the test probe.

export * from './generated/protocol';
import { GENERATED_PROTOCOL_VERSION } from './generated/protocol';

/** The version this frontend speaks: the Go side's protocol.Version it was generated from. */
export const PROTOCOL_VERSION = GENERATED_PROTOCOL_VERSION;

/**
 * HTTP header that carries PROTOCOL_VERSION on every /api/ request; without a
 * compatible one `quire serve` answers 426. The stream, which cannot carry
 * headers, sends the same as the query parameter PROTOCOL_QUERY.
 */
export const PROTOCOL_HEADER = 'Quire-Protocol';
export const PROTOCOL_QUERY = 'protocol';
/** HTTP header that makes a send safe to repeat (docs/PROTOCOL.md). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * The JSON of Go type T before its fields are checked (a tool's result
 * data, which Go types as any): each field may be missing or of any type,
 * but a field T does not have cannot be read, so a Go rename fails the
 * type check where the field is read.
 */
export type Unchecked<T> = { [K in keyof T]?: unknown };

/** True when v is a JSON object, to be read as an Unchecked<T>. */
export function isObjectOf<T>(v: unknown): v is Unchecked<T> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** PUT /api/settings (host/httpapi settingsBody; the window binds the same); the operation Settings.Screen answers the whole screen, notesDir included. */
export interface Settings {
  /** Absolute path of the notes folder; "" until chosen. */
  notesDir: string;
}

/** Wails runtime event names (EventsOn). */
export const RuntimeEvent = {
  Events: 'quire:events',
  Sessions: 'quire:sessions',
  /** IndexProgress, whenever it changes. */
  Indexing: 'quire:indexing',
  /** PullProgress, whenever a model pull changes (the last state of each pull always). */
  Pull: 'quire:pull',
  /** BatchProgress, whenever a batch or one of its tasks changes (in order per batch). */
  Batch: 'quire:batch',
  /** EvaluationJob, whenever a candidate's evaluation job changes (in order per candidate; its end always). */
  Evaluation: 'quire:evaluation',
  /** MCPServer, whenever an MCP server changes (in order per server). */
  Mcp: 'quire:mcp',
  /** A sentence: files dropped on the window that could not be queued. */
  DropError: 'quire:drop-error',
  /** DoctorReport, whenever the health checks change (Go re-checks on its own). */
  Health: 'quire:health',
  /** No data: the page fell behind and was sent nothing since; reload from the last seq. */
  Resync: 'quire:resync',
  /** Page to Go, no data: the page listens from now (it loads everything itself). */
  Listening: 'quire:listening',
  /** Page to Go: the delivery number of an Events / Sessions update the page has handled. */
  Taken: 'quire:taken',
  /**
   * A Question (with its id and every call's whole description) the window
   * is about to ask in a native dialog; the page shows it, then calls
   * QuestionShown(id).
   */
  Question: 'quire:question',
} as const;

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
  /**
   * The first screen, when shown: 'install' or 'download', the download's
   * progress (0..100, when a bar shows) and status line.
   */
  firstRun?: { state: string; percent?: number; status?: string };
  /** The header's context meter, when shown ("5,120 of 8,192 tokens"). */
  context?: string;
  /** The models screen, when open: the installed models' names and each pull's row (state, bar 0..100). */
  models?: { installed: string[]; pulls: { name: string; state: string; percent: number | null }[] };
  /** The Settings screen, when open: whether it just saved. */
  /** model: what the chat model field holds now (a test waits for its typing to land before it saves). */
  settings?: { saved: boolean; model: string };
  /**
   * The batch shown in the "Organise a folder" drawer, when open: its state
   * and counts, and the review list's rows with where each tick box is.
   */
  batch?: {
    state: string;
    done: number;
    failed: number;
    total: number;
    rows: { from: string; to: string; selected: boolean; tick: { x: number; y: number } }[];
  };
  /**
   * The Standing tasks panel, when open or when its button's dot says a
   * firing's batch waits: whether the dot is shown, and each task's row.
   */
  standing?: { badge: boolean; tasks: { name: string; paused: boolean; waiting: boolean; last: string }[] };
  /** Where the controls a desktop test clicks are (POINT_IDS on screen): centres in CSS pixels of the viewport. */
  points?: Record<string, { x: number; y: number }>;
  /** The inspector ("what the model saw"), when open: its calls, the origins shown, the copy's status. */
  inspector?: { calls: number; origins: string[]; copied: string };
}
