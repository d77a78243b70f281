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

export interface Session {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  lastSeq: number;
  running: boolean;
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

// Payloads of the event types a frontend renders.
export interface SessionTitlePayload {
  title: string;
}
export interface UserMessagePayload {
  text: string;
}
export interface RunStartedPayload {
  model: string;
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
export interface AssistantMessagePayload {
  content: string;
  thinking?: string;
  toolCalls?: unknown[];
  doneReason: string;
  model: string;
  usage: Usage;
}
export type FinishReason = 'completed' | 'cancelled' | 'error';
export interface RunFinishedPayload {
  reason: FinishReason;
  error?: string;
}

/** The event types this frontend folds; anything else is ignored. */
export const EventType = {
  SessionCreated: 'session.created',
  SessionRenamed: 'session.renamed',
  UserMessage: 'user.message',
  RunStarted: 'run.started',
  AssistantDelta: 'assistant.delta',
  AssistantMessage: 'assistant.message',
  RunFinished: 'run.finished',
} as const;

/** Wails runtime event names (EventsOn). */
export const RuntimeEvent = {
  Events: 'quire:events',
  Sessions: 'quire:sessions',
} as const;

/** What the test probe (ReportView / POST /api/probe) receives. */
export interface ViewSnapshot {
  activeSession: string | null;
  sessionTitles: string[];
  messages: { role: 'user' | 'assistant' | 'error' | 'notice'; text: string }[];
  banner: string | null;
  streaming: boolean;
}
