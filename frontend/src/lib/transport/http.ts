// Transport for a browser talking to `quire serve`: fetch for requests,
// one EventSource on /api/stream for live updates. Non-2xx answers carry
// {"error": "sentence"}, which becomes the Error's message.
//
// Handshake: every request carries `Quire-Protocol: PROTOCOL_VERSION` and the
// stream `?protocol=PROTOCOL_VERSION` (EventSource cannot set headers); an
// incompatible server answers 426 with its sentence. A send carries its
// `Idempotency-Key` and is retried with the same key when the request itself
// failed (no answer at all), so a flaky connection cannot post it twice.
//
// Access: `quire serve` answers /api only for the page opened through the
// link it prints (its secret became an HttpOnly cookie, which same-origin
// fetch and EventSource send by themselves) or a client with the secret as
// a bearer token. Every request that is not a GET is sent as JSON, body or
// not: the server refuses anything else (a web page could send a form).
// A 401 means this page has no secret (or quire serve started again since):
// it rejects with NO_ACCESS, which says what to open.
//
// Permission questions: the page's card is where they are answered here, and
// it shows what the window's card shows — each call's whole description, as
// Go's tools render it — from /api/questions/stream (subscribeQuestions),
// which sends the list of open questions whole at connect and on each change.
import {
  type BatchProgress,
  type BranchResult,
  type DoctorReport,
  type EvaluationJob,
  IDEMPOTENCY_HEADER,
  type IndexProgress,
  type Intent,
  PROTOCOL_HEADER,
  PROTOCOL_QUERY,
  PROTOCOL_VERSION,
  type PullProgress,
  type QEvent,
  type Question,
  type Session,
  type Settings,
  type SettingsScreen,
  type UserSettings,
  type ViewSnapshot,
} from '../protocol';
import { PortsClient } from './client';
import { type ExportFormat, type Exported } from './conversations';
import { evaluationJob } from './evolution';
import { type McpServer } from './mcp';
import { httpOps, type OpCall } from './ops';
import { SettingRefused, settingsScreen } from './settings';
import { NO_FOLDER_PATH, type Transport } from './transport';

type FetchFn = typeof fetch;

/** The part of EventSource this transport uses (a stub can stand in for it in tests). */
export interface EventSourceLike {
  addEventListener(type: string, listener: (ev: MessageEvent) => void): void;
  close(): void;
}
export type EventSourceFactory = (url: string) => EventSourceLike;

export interface HttpTransportOptions {
  fetch?: FetchFn;
  eventSource?: EventSourceFactory;
  /** Pause before the n-th retry of a send is n times this (default 250 ms). */
  retryDelayMs?: number;
}

/** What the page says when quire serve answers 401: the way in is the printed link. */
export const NO_ACCESS =
  'This page cannot use Quire yet: open the link quire serve printed in its terminal (it carries a secret made for each start).';

/** How often the page re-reads the MCP servers while Settings shows them (subscribeMcp). */
export const MCP_POLL_MS = 1000;

/** How many more times a send is tried after a network error (same key each time). */
export const SEND_RETRIES = 2;

interface RequestOptions {
  body?: unknown;
  /** Sent as Idempotency-Key. */
  key?: string;
  /** Extra attempts after a network error; only for requests that are safe to repeat. */
  retries?: number;
  /** Resolve with the answer's text as it came, not parsed. */
  raw?: boolean;
}

export class HttpTransport extends PortsClient implements Transport {
  readonly answersInPage = true;
  readonly choosesFolderInDialog = false;
  readonly takesFileDrops = false;
  readonly confirmsBatchInDialog = false;
  readonly confirmsUndoInDialog = false;
  readonly confirmsLoosenInDialog = false;
  readonly confirmsEvolutionInDialog = false;
  private readonly base: string;
  private readonly fetchFn: FetchFn;
  private readonly makeEventSource: EventSourceFactory;
  private readonly retryDelayMs: number;
  /** Every operation: POST /api/op/{name} with the arguments as a JSON array. */
  readonly op: OpCall;

  /** `base` is an origin like "http://127.0.0.1:7777" (no trailing slash needed). */
  constructor(base: string, opts: HttpTransportOptions = {}) {
    super();
    this.op = httpOps((path, args) => this.request('POST', path, { body: args }));
    this.base = base.replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.makeEventSource = opts.eventSource ?? ((url) => new EventSource(url));
    this.retryDelayMs = opts.retryDelayMs ?? 250;
  }

  private async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const { body, key, retries = 0, raw = false } = opts;
    const headers: Record<string, string> = { [PROTOCOL_HEADER]: PROTOCOL_VERSION };
    if (body !== undefined || (method !== 'GET' && method !== 'HEAD')) headers['Content-Type'] = 'application/json';
    if (key !== undefined) headers[IDEMPOTENCY_HEADER] = key;
    const init: RequestInit = {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      // The cookie is the page's secret; it never goes anywhere else.
      credentials: 'same-origin',
    };
    let res: Response;
    for (let attempt = 0; ; attempt++) {
      try {
        res = await this.fetchFn(this.base + path, init);
        break;
      } catch (e) {
        // No answer at all: the request may or may not have arrived. Only a
        // request that is safe to repeat (a keyed send) is tried again; an
        // HTTP error status is an answer and is never retried.
        if (attempt < retries) {
          if (this.retryDelayMs > 0) await new Promise((r) => setTimeout(r, this.retryDelayMs * (attempt + 1)));
          continue;
        }
        throw new Error(`Could not reach Quire: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const text = await res.text();
    if (res.status === 401) throw new Error(NO_ACCESS);
    if (!res.ok) {
      let message = '';
      try {
        const parsed = JSON.parse(text);
        if (parsed && typeof parsed.error === 'string') message = parsed.error;
        // A refused setting names its field (Settings.Update).
        if (message && typeof parsed.field === 'string' && parsed.field) throw new SettingRefused(parsed.field, message);
      } catch (e) {
        if (e instanceof SettingRefused) throw e;
        /* not JSON */
      }
      throw new Error(message || `Request failed: ${res.status} ${res.statusText}`.trim());
    }
    if (raw) return text as T;
    if (res.status === 204 || text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new Error(`Quire sent an answer that is not JSON (${method} ${path}).`);
    }
  }

  private static sessionPath(id: string): string {
    return `/api/sessions/${encodeURIComponent(id)}`;
  }

  async doctor(): Promise<DoctorReport> {
    const r = await this.request<DoctorReport>('GET', '/api/doctor');
    return { ok: !!r?.ok, checks: r?.checks ?? [] };
  }
  async listSessions(): Promise<Session[]> {
    return (await this.request<Session[] | null>('GET', '/api/sessions')) ?? [];
  }
  newSession(title: string): Promise<Session> {
    return this.request<Session>('POST', '/api/sessions', { body: { title } });
  }
  renameSession(id: string, title: string): Promise<Session> {
    return this.request<Session>('PATCH', HttpTransport.sessionPath(id), { body: { title } });
  }
  async deleteSession(id: string): Promise<void> {
    await this.request<void>('DELETE', HttpTransport.sessionPath(id));
  }
  async events(id: string, from: number): Promise<QEvent[]> {
    const q = `?from=${encodeURIComponent(String(from))}`;
    return (await this.request<QEvent[] | null>('GET', `${HttpTransport.sessionPath(id)}/events${q}`)) ?? [];
  }
  async send(id: string, text: string, key: string, intent: Intent = 'follow_up'): Promise<string> {
    const r = await this.request<{ runId?: string } | undefined>('POST', `${HttpTransport.sessionPath(id)}/messages`, {
      body: { text, intent },
      key,
      retries: SEND_RETRIES,
    });
    return r?.runId ?? '';
  }
  async cancel(id: string): Promise<void> {
    await this.request<void>('POST', `${HttpTransport.sessionPath(id)}/cancel`);
  }
  /** POST …/edit {seq, text} → 201 BranchResult; keyed, so retried like a send. */
  editMessage(id: string, seq: number, text: string, key: string): Promise<BranchResult> {
    return this.request<BranchResult>('POST', `${HttpTransport.sessionPath(id)}/edit`, { body: { seq, text }, key, retries: SEND_RETRIES });
  }
  /** POST …/regenerate {seq} → 201 BranchResult. */
  regenerate(id: string, seq: number, key: string): Promise<BranchResult> {
    return this.request<BranchResult>('POST', `${HttpTransport.sessionPath(id)}/regenerate`, { body: { seq }, key, retries: SEND_RETRIES });
  }
  /** POST …/continue → 202 {runId}. */
  async continueRun(id: string, key: string): Promise<string> {
    const r = await this.request<{ runId?: string } | undefined>('POST', `${HttpTransport.sessionPath(id)}/continue`, { key, retries: SEND_RETRIES });
    return r?.runId ?? '';
  }
  /** POST …/answer {callIds, allowed, feedback}: 204, or 409 {"error"} when the question is closed. */
  async answer(id: string, callIds: string[], allowed: boolean, feedback: string): Promise<void> {
    await this.request<void>('POST', `${HttpTransport.sessionPath(id)}/answer`, {
      body: { callIds, allowed, feedback },
    });
  }
  /**
   * GET …/export?format=md|jsonl → the file, handed to the browser as a
   * download under the name Quire gave it (X-Quire-Filename).
   */
  async exportSession(id: string, format: ExportFormat): Promise<Exported> {
    const path = `${HttpTransport.sessionPath(id)}/export?format=${encodeURIComponent(format)}`;
    let res: Response;
    try {
      res = await this.fetchFn(this.base + path, {
        headers: { [PROTOCOL_HEADER]: PROTOCOL_VERSION },
        credentials: 'same-origin',
      });
    } catch (e) {
      throw new Error(`Could not reach Quire: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (res.status === 401) throw new Error(NO_ACCESS);
    if (!res.ok) {
      let message = '';
      try {
        const parsed = JSON.parse(await res.text());
        if (parsed && typeof parsed.error === 'string') message = parsed.error;
      } catch {
        /* not JSON */
      }
      throw new Error(message || `Could not export: ${res.status} ${res.statusText}`.trim());
    }
    let file = `conversation.${format}`;
    try {
      file = decodeURIComponent(res.headers.get('X-Quire-Filename') || file);
    } catch {
      /* keep the plain name */
    }
    const url = URL.createObjectURL(await res.blob());
    try {
      const a = document.createElement('a');
      a.href = url;
      a.download = file;
      a.style.display = 'none';
      document.body.appendChild(a);
      a.click();
      a.remove();
    } finally {
      // The click has handed the blob to the download; the URL is not needed after.
      setTimeout(() => URL.revokeObjectURL(url), 0);
    }
    return { file, saved: false };
  }
  /** POST /api/probe → 204 (kept), or {"probing":false} when no test probe is set. */
  async reportView(snapshot: ViewSnapshot): Promise<boolean> {
    const r = await this.request<{ probing?: unknown } | undefined>('POST', '/api/probe', { body: snapshot });
    return r?.probing !== false;
  }
  /** The Settings screen (the operation Settings.Screen), whose notesDir this reads. */
  async notesFolder(): Promise<string> {
    const r = (await this.op('Settings.Screen')) as Partial<Settings> | undefined;
    return typeof r?.notesDir === 'string' ? r.notesDir : '';
  }
  /**
   * PUT /api/settings {notesDir: path} → {notesDir}, or 400 {"error"} when the
   * folder cannot be used. A browser has no folder dialog: `path` is required.
   */
  async chooseNotesFolder(path?: string): Promise<string> {
    const dir = (path ?? '').trim();
    if (!dir) throw new Error(NO_FOLDER_PATH);
    const r = await this.request<Partial<Settings> | undefined>('PUT', '/api/settings', { body: { notesDir: dir } });
    return typeof r?.notesDir === 'string' ? r.notesDir : dir;
  }

  /** One EventSource on /api/health/stream: "health" events carry the whole DoctorReport. */
  /** Settings.Update; a refused setting is 400 {"error", "field"} (SettingRefused). */
  async saveSettings(u: UserSettings): Promise<SettingsScreen> {
    return settingsScreen(await this.op('Settings.Update', u));
  }
  subscribeHealth(onReport: (r: DoctorReport) => void): () => void {
    const es = this.makeEventSource(`${this.base}/api/health/stream?${PROTOCOL_QUERY}=${encodeURIComponent(PROTOCOL_VERSION)}`);
    es.addEventListener('health', (ev) => {
      try {
        const r = JSON.parse(String(ev.data));
        if (r && typeof r === 'object' && Array.isArray(r.checks)) onReport(r as DoctorReport);
      } catch {
        /* a broken event is skipped; the next one carries the whole report */
      }
    });
    return () => es.close();
  }
  /** One EventSource on /api/documents/stream: "indexing" events carry IndexProgress. */
  subscribeIndexing(onProgress: (p: IndexProgress) => void): () => void {
    const es = this.makeEventSource(
      `${this.base}/api/documents/stream?${PROTOCOL_QUERY}=${encodeURIComponent(PROTOCOL_VERSION)}`,
    );
    es.addEventListener('indexing', (ev) => {
      try {
        const p = JSON.parse(String(ev.data));
        if (p && typeof p === 'object') onProgress(p as IndexProgress);
      } catch {
        /* a broken event is skipped; the next one carries the whole state */
      }
    });
    return () => es.close();
  }
  /** One EventSource on /api/models/pull/stream: "pull" events carry PullProgress. */
  subscribePulls(onProgress: (p: PullProgress) => void): () => void {
    const es = this.makeEventSource(
      `${this.base}/api/models/pull/stream?${PROTOCOL_QUERY}=${encodeURIComponent(PROTOCOL_VERSION)}`,
    );
    es.addEventListener('pull', (ev) => {
      try {
        const p = JSON.parse(String(ev.data));
        if (p && typeof p === 'object') onProgress(p as PullProgress);
      } catch {
        /* a broken event is skipped; the next one carries the pull's whole state */
      }
    });
    return () => es.close();
  }
  /**
   * One EventSource on /api/questions/stream: each "questions" event is the
   * whole list of open questions (the first, at connect, holds those asked
   * before this page loaded). Each question is passed on once, when it first
   * appears: a list sent again (a change elsewhere, a reconnect) does not
   * bring a question back that the page already has.
   */
  subscribeQuestions(onQuestion: (q: Question) => void): () => void {
    const es = this.makeEventSource(
      `${this.base}/api/questions/stream?${PROTOCOL_QUERY}=${encodeURIComponent(PROTOCOL_VERSION)}`,
    );
    const given = new Set<string>();
    let live = true;
    es.addEventListener('questions', (ev) => {
      let list: unknown;
      try {
        list = JSON.parse(String(ev.data));
      } catch {
        return; // a broken event is skipped; the next one carries the whole list
      }
      if (!Array.isArray(list)) return;
      for (const q of list) {
        if (!live || !q || typeof q !== 'object' || typeof (q as Question).id !== 'string') continue;
        const id = (q as Question).id as string;
        if (given.has(id)) continue;
        given.add(id);
        onQuestion(q as Question);
      }
    });
    return () => {
      live = false;
      es.close();
    };
  }

  /**
   * One EventSource on path whose `event` events each carry one whole
   * object: those `accept` takes are passed on; a broken or foreign one is
   * skipped, since the next carries its object whole. Returns the close.
   */
  private stream<T>(path: string, event: string, accept: (v: Record<string, unknown>) => boolean, on: (v: T) => void): () => void {
    const es = this.makeEventSource(`${this.base}${path}?${PROTOCOL_QUERY}=${encodeURIComponent(PROTOCOL_VERSION)}`);
    es.addEventListener(event, (ev) => {
      let v: unknown;
      try {
        v = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (v && typeof v === 'object' && accept(v as Record<string, unknown>)) on(v as T);
    });
    return () => es.close();
  }
  /** One EventSource on /api/evolution/evaluations: "evaluation" events carry EvaluationJob. */
  subscribeEvaluations(onJob: (j: EvaluationJob) => void): () => void {
    return this.stream<EvaluationJob>('/api/evolution/evaluations', 'evaluation', (j) => !!j.candidate, (j) => onJob(evaluationJob(j)));
  }
  /** One EventSource on /api/batches/stream: "batch" events carry BatchProgress. */
  subscribeBatches(onProgress: (p: BatchProgress) => void): () => void {
    return this.stream<BatchProgress>('/api/batches/stream', 'batch', (p) => !!p.batch, onProgress);
  }

  /**
   * Polls MCP.Servers every MCP_POLL_MS while subscribed (Settings is
   * open) and hands on each server whose state changed. Not the SSE
   * /api/mcp/stream: a page already holds five streams to its origin
   * (events, questions, health, documents, model pulls), and a sixth would
   * take the last connection a browser allows it, so every request after it
   * would wait.
   */
  subscribeMcp(onServer: (s: McpServer) => void): () => void {
    const seen = new Map<string, string>();
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        for (const s of (await this.mcpServers()).servers) {
          const json = JSON.stringify(s);
          if (seen.get(s.config.name) === json) continue;
          seen.set(s.config.name, json);
          onServer(s);
        }
      } catch {
        /* Quire did not answer this time; the next poll asks again */
      }
      if (!stopped) timer = setTimeout(poll, MCP_POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }


  /**
   * A stream Quire ends with a "lagging" event (this page fell behind its
   * bound) is replaced at once by a new one, and — as after any reconnect —
   * `onResync` asks the caller to reload from its last seq.
   */
  subscribe(
    onEvents: (e: QEvent[]) => void,
    onSessions: (s: Session[]) => void,
    onResync?: () => void,
  ): () => void {
    const url = `${this.base}/api/stream?${PROTOCOL_QUERY}=${encodeURIComponent(PROTOCOL_VERSION)}`;
    const BAD = Symbol('bad');
    const parse = (ev: MessageEvent): unknown => {
      try {
        return JSON.parse(String(ev.data));
      } catch {
        return BAD;
      }
    };
    // EventSource reconnects by itself; whatever happened while it was away
    // must be fetched again, so every open after the first asks for a resync.
    let opened = false;
    let stopped = false;
    let es: EventSourceLike;
    const connect = () => {
      const mine = this.makeEventSource(url);
      es = mine;
      mine.addEventListener('events', (ev) => {
        const data = parse(ev);
        if (Array.isArray(data) && data.length > 0) onEvents(data as QEvent[]);
      });
      mine.addEventListener('sessions', (ev) => {
        const data = parse(ev);
        // Go encodes an empty slice as null when nil: that is an empty list.
        if (Array.isArray(data) || data === null) onSessions((data as Session[] | null) ?? []);
      });
      mine.addEventListener('open', () => {
        if (opened) onResync?.();
        opened = true;
      });
      mine.addEventListener('lagging', () => {
        // Quire closes this stream next; do not wait for EventSource's own
        // retry: a new stream, and its open reloads what was missed.
        mine.close();
        if (!stopped && es === mine) connect();
      });
    };
    connect();
    return () => {
      stopped = true;
      es.close();
    };
  }
}
