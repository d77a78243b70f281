// The conversation view model: a pure fold of a session's events.
//
//   fold(conversation, events) -> conversation
//
// It never mutates its input, so a Svelte store can hold the result as-is.
// Rules (docs/PROTOCOL.md):
// - events of other sessions, duplicate seqs (a reconnect or an overlapping
//   catch-up delivers the same event twice) and unknown types are ignored;
// - `input.received` adds a pending input (shown as a queued bubble below the
//   conversation) until the `user.message` with its inputId arrives: then it
//   becomes a user item where the step took it up;
// - `assistant.delta` pieces accumulate into the open (streaming) assistant
//   item of their run;
// - `assistant.message` replaces that item's text with the whole reply (no
//   duplication) and lists its tool calls, in call order; a later delta of the
//   same run (the next step) opens a new item;
// - `tool.started` / `tool.result` / `tool.refused` update their call (by
//   callId) wherever it is, whatever order they arrive in;
// - `permission.requested` adds a permission item; `permission.answered`
//   records the answer on it; a call of it refused as denied before any
//   answer is the deadline's No ("No answer in time"), any other refusal
//   closes it (a stop);
// - `history.replace` (a compaction) adds a marker where it happened, with
//   the summary or stub the model sees instead, the figures it was judged
//   by, and the original messages of its range (they stay in the log and
//   stay shown above; the marker can list them); an earlier marker whose
//   summary the new range covers is marked superseded;
// - `run.finished` closes the run: 'error' adds an error item with the
//   sentence from Go, 'cancelled' marks the open item as stopped, the limits
//   (max-steps, budget, loop, …) add a notice with their sentence; 'empty'
//   (the model returned nothing, even when asked again) adds an error item
//   with a Retry that sends the user's last message again;
// - a `user.message` of intent 'note' is Quire's own word to the model after
//   an empty reply: a notice saying so, never a user bubble;
// - a `user.message` of kind 'continue' is Quire asking the model to go on
//   with a cut-off reply (run.continue): a notice, never a user bubble;
// - an `input.received` whose frozen capabilities withheld the tools
//   (caps.toolsOff) adds a notice, once per conversation and model, saying
//   what Quire cannot do with this model and which installed one could.
import type { Capabilities, FinishReason, Intent, QEvent, ToolCall, Usage } from './protocol';
import { EventType } from './protocol';

export type ItemKind = 'user' | 'assistant' | 'error' | 'notice' | 'permission' | 'compaction';

/**
 * Where a tool call is: asked for by the model (requested), waiting for the
 * user (asking), running, finished with a result, or refused (not run, or its
 * end is unknown).
 */
export type CallPhase = 'requested' | 'asking' | 'running' | 'finished' | 'refused';

export interface CallState {
  id: string;
  name: string;
  /** The model's JSON text. */
  arguments: string;
  phase: CallPhase;
  /** tool.result's status when finished, tool.refused's when refused. */
  status?: string;
  /** The result's content, or the refusal's reason. */
  content?: string;
  data?: unknown;
  durationNs?: number;
  attempts?: number;
}

export interface PermissionAnswer {
  allowed: boolean;
  feedback?: string;
  byDefault?: boolean;
}

/** A call as a card shows it: a call the model asked for, with its id ('' when it had none). */
export interface AskedCall {
  id: string;
  name: string;
  /** The model's JSON text. */
  arguments: string;
}

export interface PermissionState {
  calls: readonly AskedCall[];
  /** Unix nanoseconds of the default answer; 0 when none. */
  deadlineNs: number;
  /** Set when permission.answered came. */
  answer?: PermissionAnswer;
  /** The request ended (or was stopped) before any answer. */
  closed?: boolean;
}

/** One message a compaction replaced, as the model saw it before. */
export interface OriginalMessage {
  seq: number;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  /** The tool's name (role tool), or the calls an assistant message made. */
  name?: string;
}

/** kind 'compaction': what replaced what, and why. */
export interface CompactionState {
  from: number;
  to: number;
  /** summarise, drop-logs, extract-facts; '' for a replace made otherwise. */
  strategy: string;
  /** size, pollution, overflow; '' when not recorded. */
  trigger: string;
  beforeTokens?: number;
  afterTokens?: number;
  index?: number;
  fill?: number;
  dropped: readonly string[];
  /** The messages of from..to in the log, in seq order. */
  originals: readonly OriginalMessage[];
  /** Set when a later compaction replaced this one's summary too: the seq of its marker. */
  supersededBy?: number;
}

export interface Item {
  /** Stable key: the seq of the event that created the item. */
  key: number;
  kind: ItemKind;
  text: string;
  thinking?: string;
  runId?: string;
  /** True while deltas may still arrive for this item. */
  streaming: boolean;
  /** The run was cancelled while this item was being written. */
  stopped?: boolean;
  /** The reply was cut off (a cancel or a failure). */
  interrupted?: boolean;
  usage?: Usage;
  /** The step of the run that wrote this reply. */
  step?: number;
  /** kind 'assistant': the seq of its assistant.message (the key is where it began), for a search hit to find it. */
  messageSeq?: number;
  /** The tool calls of this step, in call order. */
  calls?: readonly CallState[];
  /** kind 'permission': the question and, once given, its answer. */
  permission?: PermissionState;
  /** kind 'notice': 'warn' for a run stopped by a limit. */
  tone?: 'warn';
  /** kind 'user': how it was sent. */
  intent?: Intent;
  /** kind 'user': its request ended before taking it up (the model never saw it). */
  unsent?: boolean;
  /** kind 'compaction': the replace; `text` is the summary or stub. */
  compaction?: CompactionState;
  /** kind 'error': the text Retry sends again (the run ended with nothing from the model). */
  retry?: string;
  /** kind 'notice': the model this run sent no tools to (the no-tools notice). */
  toolsOffModel?: string;
  /** kind 'notice': the model and the tools left out to fit its context (the left-out notice, once per set). */
  leftOutKey?: string;
}

/** An input that arrived and waits for a step to take it up. */
export interface PendingInput {
  /** The seq of its input.received. */
  key: number;
  inputId: string;
  intent: Intent;
  text: string;
  /** The run it opens if it opens one. */
  runId?: string;
}

export interface Conversation {
  session: string;
  /** Title as the log tells it (session.created / session.renamed). */
  title: string | null;
  items: readonly Item[];
  /** Inputs not yet taken up, in arrival order (shown after the items). */
  pending: readonly PendingInput[];
  /** Run id of the run in progress, or null. */
  activeRun: string | null;
  /** Highest seq folded so far; -1 when nothing was. */
  lastSeq: number;
  /** Seq of the latest run.finished; -1 when none. */
  lastFinishedSeq: number;
  /** Every seq folded so far. */
  seen: ReadonlySet<number>;
  /**
   * The folded events of this session, in seq order (kept to refold when a
   * late, older one arrives), without the assistant.delta pieces a landed
   * assistant.message made moot (`settled`).
   */
  events: readonly QEvent[];
}

export const STOPPED_NOTICE = 'Stopped.';
export const FALLBACK_ERROR = 'Something went wrong while answering.';

/** What a run stopped by a limit says when Go sent no sentence. */
export const REASON_FALLBACK: Readonly<Partial<Record<FinishReason, string>>> = {
  denied: 'This request was not run.',
  'nothing-to-do': 'There was nothing to answer.',
  'max-steps': 'Stopped: this request took the most steps one request may take.',
  'max-tool-calls': 'Stopped: the assistant asked for more tool calls than one request may make.',
  budget: 'Stopped: this request used up its token budget.',
  loop: 'Stopped: the assistant kept making the same call with the same result.',
  interrupted: 'Quire stopped before this request finished.',
};

const INTENTS: ReadonlySet<string> = new Set<Intent>(['follow_up', 'steer', 'inject', 'note']);

/** What the window shows where Quire asked the model again after an empty reply. */
export const NOTE_NOTICE = 'The model returned nothing; Quire asked it once more.';

/** What the window shows where Quire asked the model to continue a cut-off reply (run.continue). */
export const CONTINUE_NOTICE = 'You asked the model to continue its reply.';

/** What a run that ended with nothing from the model says when Go sent no sentence. */
export const EMPTY_FALLBACK = 'The model returned nothing. Retry, or choose another model in Settings.';

/** What the tools Quire withheld would have let it do, by tool name. */
function abilities(withheld: readonly string[]): string[] {
  const out: string[] = [];
  const has = (f: (n: string) => boolean) => withheld.some(f);
  if (has((n) => /_notes?$/.test(n) || n === 'undo' || n === 'make_folder' || n === 'set_tags')) out.push('read or change your notes');
  if (has((n) => n === 'search_docs')) out.push('search your documents');
  if (has((n) => n === 'remember' || n === 'forget')) out.push('remember things for later');
  if (has((n) => n === 'update_todos')) out.push('keep a plan');
  return out;
}

function list(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/**
 * The no-tools notice: the model cannot use tools (or Ollama refused them),
 * so Quire cannot do what those tools do, and which installed model could.
 */
export function toolsOffText(caps: Pick<Capabilities, 'model' | 'toolsOff' | 'withheld' | 'toolModels'>): string {
  const can = abilities(caps.withheld ?? []);
  const why = caps.toolsOff === 'refused' ? `Ollama refused tools for ${caps.model}` : `${caps.model} cannot use tools`;
  const cannot = can.length ? `, so in this chat Quire cannot ${list(can)}.` : ', so Quire answers without them in this chat.';
  const others = caps.toolModels ?? [];
  const instead = others.length
    ? ` ${list(others)} can: choose it in Settings.`
    : ' Choose a model that can use tools in Settings to do these.';
  return why + cannot + instead;
}

function leftOutKey(model: string, leftOut: readonly string[]): string {
  return `${model}|${leftOut.join(',')}`;
}

/**
 * The left-out notice: all of Quire's tools would not fit the model's
 * context, so the run offers the ones the request needs and names the rest.
 */
export function leftOutText(caps: Pick<Capabilities, 'model' | 'numCtx' | 'tools' | 'leftOut'>): string {
  const left = caps.leftOut ?? [];
  const kept = caps.tools?.length ?? 0;
  return (
    `All of Quire's tools would not fit ${caps.model}'s context of ${caps.numCtx.toLocaleString('en-US')} tokens, ` +
    `so this request offers the ${kept} it needs most and leaves out ${left.length > 1 ? `${left.slice(0, -1).join(', ')} and ${left[left.length - 1]}` : left.join('')}. ` +
    'Ask for what those do by name, or choose a model with a larger context in Settings.'
  );
}

export function emptyConversation(session: string): Conversation {
  return {
    session,
    title: null,
    items: [],
    pending: [],
    activeRun: null,
    lastSeq: -1,
    lastFinishedSeq: -1,
    seen: new Set(),
    events: [],
  };
}

/**
 * Folds `events` into `conv` and returns the new conversation. The result
 * depends only on the set of events folded so far, whatever the batches and
 * their order: new events past lastSeq are applied incrementally; an older,
 * unseen one (a catch-up overlapping the live stream) triggers a refold.
 */
export function fold(conv: Conversation, events: readonly QEvent[]): Conversation {
  const fresh: QEvent[] = [];
  const batchSeen = new Set<number>();
  for (const e of events) {
    if (!e || e.session !== conv.session || typeof e.seq !== 'number') continue;
    if (conv.seen.has(e.seq) || batchSeen.has(e.seq)) continue; // duplicate
    batchSeen.add(e.seq);
    fresh.push(e);
  }
  if (fresh.length === 0) return conv;
  fresh.sort((a, b) => a.seq - b.seq);

  const seen = new Set(conv.seen);
  for (const e of fresh) seen.add(e.seq);

  if (fresh[0].seq > conv.lastSeq) {
    const st = apply(
      {
        title: conv.title,
        items: conv.items.slice(),
        pending: conv.pending.slice(),
        activeRun: conv.activeRun,
        lastSeq: conv.lastSeq,
        lastFinishedSeq: conv.lastFinishedSeq,
      },
      fresh,
      conv.events,
    );
    return { session: conv.session, ...st, seen, events: settled(conv.events.concat(fresh), st.items) };
  }
  const all = conv.events.concat(fresh).sort((a, b) => a.seq - b.seq);
  const st = apply({ title: null, items: [], pending: [], activeRun: null, lastSeq: -1, lastFinishedSeq: -1 }, all, []);
  return { session: conv.session, ...st, seen, events: settled(all, st.items) };
}

/**
 * `events` (in seq order) without the assistant.delta pieces that can no
 * longer change the fold: those of a run whose later assistant.message has
 * landed (it replaces the streamed text and thinking whole), except a piece
 * whose seq is an item's key (the first piece of a step without a
 * run.started of its own opens that item, and a refold must give it the same
 * key). A long conversation is mostly such pieces, and the page kept every
 * one of them for as long as the chat was open; `seen` still holds their
 * seqs, so a piece delivered again is a duplicate, not news.
 */
function settled(events: readonly QEvent[], items: readonly Item[]): readonly QEvent[] {
  const closed = new Map<string, number>(); // runId -> seq of its last assistant.message
  let deltas = 0;
  for (const e of events) {
    if (e.type === EventType.AssistantMessage) closed.set(e.runId ?? '', e.seq);
    else if (e.type === EventType.AssistantDelta) deltas++;
  }
  if (deltas === 0) return events;
  const keys = new Set(items.map((i) => i.key));
  const out = events.filter(
    (e) => e.type !== EventType.AssistantDelta || keys.has(e.seq) || e.seq > (closed.get(e.runId ?? '') ?? -1),
  );
  return out.length === events.length ? events : out;
}

interface FoldState {
  title: string | null;
  items: Item[];
  pending: PendingInput[];
  activeRun: string | null;
  lastSeq: number;
  lastFinishedSeq: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A tool call from the log, whatever shape it came in (arguments as an object, say). */
function toCall(c: unknown): AskedCall | null {
  if (!c || typeof c !== 'object') return null;
  const o = c as Partial<Record<keyof ToolCall, unknown>>;
  const args = o.arguments;
  return {
    id: str(o.id),
    name: str(o.name),
    arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
  };
}

function toCalls(list: unknown): AskedCall[] {
  if (!Array.isArray(list)) return [];
  return list.map(toCall).filter((c): c is AskedCall => c !== null);
}

/**
 * The event with a payload the fold can read: one that is not an object (a
 * damaged log) reads as an object with no fields. Fields Go always writes
 * may still be missing in an old or damaged log, so the cases below read
 * them through str() and num().
 */
function readable(e: QEvent): QEvent {
  return e.payload && typeof e.payload === 'object' ? e : ({ ...e, payload: {} } as QEvent);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The messages a replace of from..to stands for: the projected events in its range. */
function originals(from: number, to: number, events: readonly QEvent[]): OriginalMessage[] {
  const out: OriginalMessage[] = [];
  for (const raw of events) {
    if (raw.seq < from || raw.seq > to) continue;
    const e = readable(raw);
    switch (e.type) {
      case EventType.UserMessage:
        out.push({ seq: e.seq, role: 'user', text: str(e.payload.text) });
        break;
      case EventType.AssistantMessage: {
        const calls = toCalls(e.payload.toolCalls).map((c) => `${c.name} ${c.arguments}`.trim());
        out.push({ seq: e.seq, role: 'assistant', text: str(e.payload.content), name: calls.length ? calls.join(', ') : undefined });
        break;
      }
      case EventType.ToolResult:
        out.push({ seq: e.seq, role: 'tool', text: str(e.payload.content), name: str(e.payload.name) });
        break;
      case EventType.ToolRefused:
        out.push({ seq: e.seq, role: 'tool', text: str(e.payload.reason), name: str(e.payload.name) });
        break;
    }
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/**
 * Applies events (sorted, new, of this session) to `st`; `st.items` and
 * `st.pending` are private copies; `prior` are the events folded before
 * (a compaction marker lists the originals it replaced from them).
 */
function apply(st: FoldState, events: readonly QEvent[], prior: readonly QEvent[]): FoldState {
  const items = st.items;
  let pending = st.pending;
  let { title, activeRun, lastSeq, lastFinishedSeq } = st;

  // Index (in `items`) of the open assistant item of a run, or -1.
  const openItem = (runId: string): number => {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === 'assistant' && it.runId === runId) return it.streaming ? i : -1;
    }
    return -1;
  };
  const lastAssistant = (runId: string): number => {
    for (let i = items.length - 1; i >= 0; i--) {
      if (items[i].kind === 'assistant' && items[i].runId === runId) return i;
    }
    return -1;
  };
  const update = (i: number, patch: Partial<Item>) => {
    items[i] = { ...items[i], ...patch };
  };
  const updateCall = (i: number, j: number, patch: Partial<CallState>) => {
    const calls = (items[i].calls ?? []).slice();
    calls[j] = { ...calls[j], ...patch };
    items[i] = { ...items[i], calls };
  };
  /** [item, call] of a call by id; a call the log never announced gets a card of its own. */
  const findCall = (callId: string, name: string, runId: string, seq: number): [number, number] => {
    for (let i = items.length - 1; i >= 0; i--) {
      const calls = items[i].calls;
      if (!calls) continue;
      const j = calls.findIndex((c) => c.id === callId && (callId !== '' || c.name === name));
      if (j >= 0) return [i, j];
    }
    const call: CallState = { id: callId, name, arguments: '', phase: 'requested' };
    const i = lastAssistant(runId);
    if (i >= 0 && items[i].calls) {
      update(i, { calls: [...(items[i].calls ?? []), call] });
      return [i, (items[i].calls ?? []).length - 1];
    }
    items.push({ key: seq, kind: 'assistant', text: '', runId, streaming: false, calls: [call] });
    return [items.length - 1, 0];
  };
  /** Index of the last permission item asking about any of `callIds` that has no answer, or -1. */
  const openPermission = (callIds: readonly string[]): number => {
    for (let i = items.length - 1; i >= 0; i--) {
      const p = items[i].permission;
      if (items[i].kind !== 'permission' || !p || p.answer || p.closed) continue;
      if (p.calls.some((c) => callIds.includes(c.id))) return i;
    }
    return -1;
  };

  for (const raw of events) {
    const e = readable(raw);
    lastSeq = Math.max(lastSeq, e.seq);
    const runId = e.runId ?? '';

    switch (e.type) {
      case EventType.SessionCreated:
      case EventType.SessionRenamed:
        if (typeof e.payload.title === 'string') title = e.payload.title;
        break;

      case EventType.InputReceived: {
        const p = e.payload;
        const caps = p.caps;
        if (caps && caps.toolsOff && !items.some((it) => it.toolsOffModel === caps.model)) {
          items.push({ key: e.seq, kind: 'notice', tone: 'warn', text: toolsOffText(caps), streaming: false, toolsOffModel: caps.model });
        }
        const leftOut = caps?.leftOut ?? [];
        if (caps && leftOut.length > 0 && !items.some((it) => it.leftOutKey === leftOutKey(caps.model, leftOut))) {
          items.push({ key: e.seq, kind: 'notice', text: leftOutText(caps), streaming: false, leftOutKey: leftOutKey(caps.model, leftOut) });
        }
        const inputId = str(p.inputId);
        if (pending.some((x) => x.inputId === inputId && inputId !== '')) break;
        const intent = INTENTS.has(p.intent) ? (p.intent as Intent) : 'follow_up';
        pending = [...pending, { key: e.seq, inputId, intent, text: str(p.text), runId: str(p.runId) || undefined }];
        break;
      }

      case EventType.UserMessage: {
        const p = e.payload;
        const inputId = str(p.inputId);
        if (inputId) pending = pending.filter((x) => x.inputId !== inputId);
        if (p.intent === 'note') {
          items.push({ key: e.seq, kind: 'notice', text: NOTE_NOTICE, runId, streaming: false });
          break;
        }
        if (p.kind === 'continue') {
          items.push({ key: e.seq, kind: 'notice', text: CONTINUE_NOTICE, runId, streaming: false });
          break;
        }
        // A run starts (and shows its placeholder) before the step that takes
        // up the user's words: keep the words above the reply they prompt.
        const user: Item = { key: e.seq, kind: 'user', text: String(p.text ?? ''), streaming: false };
        if (p.intent && INTENTS.has(p.intent) && p.intent !== 'follow_up') user.intent = p.intent;
        const i = activeRun ? openItem(activeRun) : -1;
        if (i >= 0 && i === items.length - 1 && !items[i].text && !items[i].thinking) items.splice(i, 0, user);
        else items.push(user);
        break;
      }

      case EventType.RunStarted:
        activeRun = runId;
        if (openItem(runId) < 0) {
          items.push({ key: e.seq, kind: 'assistant', text: '', runId, streaming: true });
        }
        break;

      case EventType.AssistantDelta: {
        const d = e.payload;
        let i = openItem(runId);
        if (i < 0) {
          items.push({ key: e.seq, kind: 'assistant', text: '', runId, streaming: true });
          i = items.length - 1;
        }
        const it = items[i];
        const patch: Partial<Item> = {};
        if (d.content) patch.text = it.text + d.content;
        if (d.thinking) patch.thinking = (it.thinking ?? '') + d.thinking;
        update(i, patch);
        break;
      }

      case EventType.AssistantMessage: {
        const m = e.payload;
        const calls: CallState[] = toCalls(m.toolCalls).map((c) => ({ ...c, phase: 'requested' }));
        const final: Partial<Item> = {
          text: String(m.content ?? ''),
          thinking: m.thinking ? String(m.thinking) : undefined,
          usage: m.usage,
          streaming: false,
          step: num(m.step),
          messageSeq: e.seq,
          calls: calls.length ? calls : undefined,
          interrupted: m.interrupted ? true : undefined,
        };
        let i = openItem(runId);
        if (i >= 0) update(i, final);
        else {
          items.push({ key: e.seq, kind: 'assistant', runId, ...final } as Item);
          i = items.length - 1;
        }
        // A step with no text and no calls has nothing to show.
        if (!items[i].text && !items[i].thinking && !items[i].calls) items.splice(i, 1);
        break;
      }

      case EventType.ToolStarted: {
        const p = e.payload;
        const [i, j] = findCall(str(p.callId), str(p.name), runId, e.seq);
        const c = items[i].calls![j];
        if (c.phase === 'requested' || c.phase === 'asking') updateCall(i, j, { phase: 'running', name: c.name || str(p.name) });
        break;
      }

      case EventType.ToolResult: {
        const r = e.payload;
        const [i, j] = findCall(str(r.callId), str(r.name), runId, e.seq);
        updateCall(i, j, {
          phase: 'finished',
          name: items[i].calls![j].name || str(r.name),
          status: str(r.status) || 'success',
          content: str(r.content),
          data: r.data,
          durationNs: num(r.durationNs),
          attempts: num(r.attempts),
        });
        break;
      }

      case EventType.ToolRefused: {
        const r = e.payload;
        const callId = str(r.callId);
        const [i, j] = findCall(callId, str(r.name), runId, e.seq);
        updateCall(i, j, {
          phase: 'refused',
          name: items[i].calls![j].name || str(r.name),
          status: str(r.status) || 'failure',
          content: str(r.reason),
        });
        // A call refused while its question was open: nothing to answer any
        // more. Denied with no answer before it is the deadline's No (the
        // kernel answers on its clock, with no permission.answered); any
        // other refusal is a stop.
        const k = openPermission([callId]);
        if (k >= 0) {
          const p = items[k].permission!;
          update(k, {
            permission: r.status === 'denied' ? { ...p, answer: { allowed: false, byDefault: true } } : { ...p, closed: true },
          });
        }
        break;
      }

      case EventType.PermissionRequested: {
        const q = e.payload;
        const calls = toCalls(q.calls);
        const ids = calls.map((c) => c.id);
        for (let i = 0; i < items.length; i++) {
          const list = items[i].calls;
          if (!list) continue;
          list.forEach((c, j) => {
            if (ids.includes(c.id) && c.phase === 'requested') updateCall(i, j, { phase: 'asking' });
          });
        }
        items.push({
          key: e.seq,
          kind: 'permission',
          text: '',
          runId,
          streaming: false,
          permission: { calls, deadlineNs: num(q.deadlineNs) ?? 0 },
        });
        break;
      }

      case EventType.PermissionAnswered: {
        const a = e.payload;
        const ids = Array.isArray(a.callIds) ? a.callIds.map(String) : [];
        const k = openPermission(ids);
        if (k < 0) break;
        const answer: PermissionAnswer = { allowed: !!a.allowed };
        if (a.feedback) answer.feedback = String(a.feedback);
        if (a.byDefault) answer.byDefault = true;
        update(k, { permission: { ...items[k].permission!, answer } });
        // The answered calls wait no more: they run (tool.started) or are refused next.
        for (let i = 0; i < items.length; i++) {
          items[i].calls?.forEach((c, j) => {
            if (ids.includes(c.id) && c.phase === 'asking') updateCall(i, j, { phase: 'requested' });
          });
        }
        break;
      }

      case EventType.RunFinished: {
        const f = e.payload;
        const reason = f.reason;
        const cancelled = reason === 'cancelled';
        const i = openItem(runId);
        let stopShown = false;
        if (i >= 0) {
          const empty = !items[i].text && !items[i].thinking && !items[i].calls;
          if (empty) items.splice(i, 1);
          else {
            update(i, { streaming: false, stopped: cancelled ? true : undefined });
            stopShown = cancelled;
          }
        } else if (cancelled) {
          // The reply was cut off and then logged whole (interrupted): mark it stopped.
          const j = lastAssistant(runId);
          if (j >= 0 && j === items.length - 1 && items[j].interrupted) {
            update(j, { stopped: true });
            stopShown = true;
          }
        }
        // Nothing of this run may stay "running" or "waiting" once it ended.
        for (let k = 0; k < items.length; k++) {
          const it = items[k];
          if (it.runId !== runId) continue;
          if (it.kind === 'permission' && it.permission && !it.permission.answer && !it.permission.closed) {
            update(k, { permission: { ...it.permission, closed: true } });
          }
          it.calls?.forEach((c, j) => {
            if (c.phase === 'running') updateCall(k, j, { phase: 'refused', status: 'unknown_completion' });
            else if (c.phase === 'requested' || c.phase === 'asking') updateCall(k, j, { phase: 'refused', status: 'cancelled' });
          });
        }
        // An input this run was opened for and never took up (e.g. too long):
        // shown where it was, marked as not sent to the assistant.
        for (const x of pending.filter((x) => x.runId === runId && runId !== '')) {
          items.push({ key: x.key, kind: 'user', text: x.text, streaming: false, unsent: true });
        }
        pending = pending.filter((x) => !(x.runId === runId && runId !== ''));

        const sentence = typeof f.error === 'string' && f.error.trim() ? f.error : '';
        if (cancelled && !stopShown) {
          items.push({ key: e.seq, kind: 'notice', text: STOPPED_NOTICE, runId, streaming: false });
        } else if (reason === 'error') {
          // Nothing generated (Ollama was not running): Retry sends the
          // words again, as after an empty reply; there is no reply to
          // continue (chat.svelte.ts continuable).
          const item: Item = { key: e.seq, kind: 'error', text: sentence || FALLBACK_ERROR, runId, streaming: false };
          if (!items.some((x) => x.runId === runId && x.kind === 'assistant' && x.interrupted && x.text)) {
            let asked: Item | undefined;
            for (let k = items.length - 1; k >= 0 && !asked; k--) if (items[k].kind === 'user' && !items[k].unsent) asked = items[k];
            if (asked?.text) item.retry = asked.text;
          }
          items.push(item);
        } else if (reason === 'empty') {
          // Retry asks again with the words the user last sent.
          let asked: Item | undefined;
          for (let k = items.length - 1; k >= 0 && !asked; k--) if (items[k].kind === 'user' && !items[k].unsent) asked = items[k];
          const item: Item = { key: e.seq, kind: 'error', text: sentence || EMPTY_FALLBACK, runId, streaming: false };
          if (asked?.text) item.retry = asked.text;
          items.push(item);
        } else if (reason !== 'completed' && !cancelled) {
          const text = sentence || REASON_FALLBACK[reason];
          if (text) items.push({ key: e.seq, kind: 'notice', tone: 'warn', text, runId, streaming: false });
        }
        if (activeRun === runId) activeRun = null;
        lastFinishedSeq = e.seq;
        break;
      }

      case EventType.HistoryReplace: {
        const r = e.payload;
        const from = num(r.from);
        const to = num(r.to);
        if (from === undefined || to === undefined) break;
        const c = r.compaction;
        const f = c?.figures;
        // An earlier summary inside this range is replaced in its turn (it
        // stands at its own `from`): its marker says so instead of repeating.
        items.forEach((it, i) => {
          const old = it.compaction;
          if (it.kind === 'compaction' && old && !old.supersededBy && old.from >= from && old.from <= to) {
            update(i, { compaction: { ...old, supersededBy: e.seq } });
          }
        });
        items.push({
          key: e.seq,
          kind: 'compaction',
          text: str(r.summary),
          runId: runId || undefined,
          streaming: false,
          compaction: {
            from,
            to,
            strategy: str(c?.strategy),
            trigger: str(c?.trigger),
            beforeTokens: num(c?.beforeTokens),
            afterTokens: num(c?.afterTokens),
            index: num(f?.index),
            fill: num(f?.fill),
            dropped: Array.isArray(c?.dropped) ? c.dropped.map(String) : [],
            originals: originals(from, to, prior.concat(events.filter((x) => x.seq < e.seq))),
          },
        });
        break;
      }

      default:
        // Unknown types (and step.started, which changes nothing on screen) are ignored.
        break;
    }
  }
  return { title, items, pending, activeRun, lastSeq, lastFinishedSeq };
}

/** Folds a whole log from scratch. */
export function foldAll(session: string, events: readonly QEvent[]): Conversation {
  return fold(emptyConversation(session), events);
}

/** True when the fold has a gap before `events` (something was missed). */
export function hasGap(conv: Conversation, events: readonly QEvent[]): boolean {
  const mine = events.filter((e) => e.session === conv.session && !conv.seen.has(e.seq));
  if (mine.length === 0) return false;
  const min = Math.min(...mine.map((e) => e.seq));
  return min > conv.lastSeq + 1;
}

/**
 * True while a run is going and nothing of it shows progress: no reply is
 * streaming, no call is running or waiting for the user. That is the pause
 * between steps (the next step.started is internal), shown as "working".
 */
export function betweenSteps(conv: Conversation | null): boolean {
  if (!conv?.activeRun) return false;
  for (const it of conv.items) {
    if (it.streaming) return false;
    if (it.runId !== conv.activeRun) continue;
    if (it.calls?.some((c) => c.phase === 'running' || c.phase === 'asking' || c.phase === 'requested')) return false;
    if (it.permission && !it.permission.answer && !it.permission.closed) return false;
  }
  return true;
}

/** The share of the window at which Quire compacts the history (kernel/compact DefaultPolicy.SizeTrigger). */
export const COMPACT_AT = 0.75;
/** From this share on, the meter warns that a compaction is near. */
export const WARN_AT = 0.65;

/** How full the model's context is (the conversation header's meter). */
export interface ContextUse {
  /** Tokens of the last request the model reported (prompt_eval_count), or a compaction's estimate of what is left after it. */
  used: number;
  /** The window of the run that made it: its num_ctx, or the compaction's window when that is smaller (the model's trained length). */
  window: number;
  /** used / window. */
  fill: number;
  /** `used` is a compaction's estimate, not the model's count. */
  estimated: boolean;
  /** At WARN_AT or more: a compaction is near (at COMPACT_AT Quire summarises older messages). */
  warn: boolean;
}

/**
 * How full the context is, from the log alone: the last reply's prompt
 * tokens (or, after a compaction, its estimate of what is left) against the
 * window of the run that made it (num_ctx in the capabilities its
 * input.received froze; a compaction's own figures.window when smaller,
 * since it counts the model's trained length). Null before a reply with
 * a count, or when no window is known. Reads backwards, so it costs the
 * events since the last reply, not the whole log.
 */
/**
 * Whether `item` is its request's last reply: the one a person reads as
 * the answer. The token counts and Regenerate go there only; under each
 * step before it (a "let me look" with tool calls) they meant nothing to
 * the reader (issue 31). An item not in `items` counts as last.
 */
export function isRunEnd(items: readonly Item[], item: Item): boolean {
  if (item.kind !== 'assistant' || !item.runId) return true;
  const i = items.findIndex((x) => x.key === item.key);
  if (i < 0) return true;
  for (let j = i + 1; j < items.length; j++) if (items[j].kind === 'assistant' && items[j].runId === item.runId) return false;
  return true;
}

export function contextUse(conv: Conversation | null): ContextUse | null {
  const events = conv?.events ?? [];
  let i = events.length - 1;
  let used = 0;
  let window = 0;
  let estimated = false;
  let runId = '';
  for (; i >= 0; i--) {
    const e = readable(events[i]);
    if (e.type === EventType.AssistantMessage) {
      const n = num(e.payload.usage?.promptTokens) ?? 0;
      if (n > 0) {
        used = n;
        runId = e.runId ?? '';
        break;
      }
    } else if (e.type === EventType.HistoryReplace) {
      const c = e.payload.compaction;
      const n = num(c?.afterTokens) ?? 0;
      if (n > 0) {
        used = n;
        window = num(c?.figures?.window) ?? 0;
        estimated = true;
        runId = e.runId ?? '';
        break;
      }
    }
  }
  if (used === 0) return null;
  // The run's window: its frozen num_ctx, capped by any compaction of the
  // same run that measured a smaller one.
  for (let j = i - 1; j >= 0 && runId; j--) {
    const e = readable(events[j]);
    if (e.type === EventType.HistoryReplace && e.runId === runId) {
      const w = num(e.payload.compaction?.figures?.window) ?? 0;
      if (w > 0 && (window === 0 || w < window)) window = w;
    } else if (e.type === EventType.InputReceived && str(e.payload.runId) === runId && e.payload.caps) {
      const w = num(e.payload.caps.numCtx) ?? 0;
      if (w > 0 && (window === 0 || w < window)) window = w;
      break;
    }
  }
  if (window <= 0) return null;
  const fill = used / window;
  return { used, window, fill, estimated, warn: fill >= WARN_AT };
}
