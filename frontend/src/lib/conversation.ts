// The conversation view model: a pure fold of a session's events.
//
//   fold(conversation, events) -> conversation
//
// It never mutates its input, so a Svelte store can hold the result as-is.
// Rules (docs/PROTOCOL.md):
// - events of other sessions, duplicate seqs (a reconnect or an overlapping
//   catch-up delivers the same event twice) and unknown types are ignored;
// - `assistant.delta` pieces accumulate into the open (streaming) assistant
//   item of their run;
// - `assistant.message` replaces that item's text with the whole reply (no
//   duplication); a later delta of the same run (the next step of a tool loop)
//   opens a new item;
// - `run.finished` closes the run: 'error' adds an error item with the
//   sentence from Go, 'cancelled' marks the open item as stopped.
import type {
  AssistantDeltaPayload,
  AssistantMessagePayload,
  QEvent,
  RunFinishedPayload,
  Usage,
} from './protocol';
import { EventType } from './protocol';

export type ItemKind = 'user' | 'assistant' | 'error' | 'notice';

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
  usage?: Usage;
}

export interface Conversation {
  session: string;
  /** Title as the log tells it (session.created / session.renamed). */
  title: string | null;
  items: readonly Item[];
  /** Run id of the run in progress, or null. */
  activeRun: string | null;
  /** Highest seq folded so far; -1 when nothing was. */
  lastSeq: number;
  /** Seq of the latest run.finished; -1 when none. */
  lastFinishedSeq: number;
  /** Every seq folded so far. */
  seen: ReadonlySet<number>;
  /** The folded events of this session, in seq order (kept to refold when a late, older one arrives). */
  events: readonly QEvent[];
}

export const STOPPED_NOTICE = 'Stopped.';
export const FALLBACK_ERROR = 'Something went wrong while answering.';

export function emptyConversation(session: string): Conversation {
  return { session, title: null, items: [], activeRun: null, lastSeq: -1, lastFinishedSeq: -1, seen: new Set(), events: [] };
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
        activeRun: conv.activeRun,
        lastSeq: conv.lastSeq,
        lastFinishedSeq: conv.lastFinishedSeq,
      },
      fresh,
    );
    return { session: conv.session, ...st, seen, events: conv.events.concat(fresh) };
  }
  const all = conv.events.concat(fresh).sort((a, b) => a.seq - b.seq);
  const st = apply({ title: null, items: [], activeRun: null, lastSeq: -1, lastFinishedSeq: -1 }, all);
  return { session: conv.session, ...st, seen, events: all };
}

interface FoldState {
  title: string | null;
  items: Item[];
  activeRun: string | null;
  lastSeq: number;
  lastFinishedSeq: number;
}

/** Applies events (sorted, new, of this session) to `st`; `st.items` is a private copy. */
function apply(st: FoldState, events: readonly QEvent[]): FoldState {
  const items = st.items;
  let { title, activeRun, lastSeq, lastFinishedSeq } = st;

  // Index (in `items`) of the open assistant item of a run, or -1.
  const openItem = (runId: string): number => {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === 'assistant' && it.runId === runId) return it.streaming ? i : -1;
    }
    return -1;
  };
  const update = (i: number, patch: Partial<Item>) => {
    items[i] = { ...items[i], ...patch };
  };

  for (const e of events) {
    lastSeq = Math.max(lastSeq, e.seq);
    const p = e.payload ?? {};
    const runId = e.runId ?? '';

    switch (e.type) {
      case EventType.SessionCreated:
      case EventType.SessionRenamed:
        if (typeof p.title === 'string') title = p.title;
        break;

      case EventType.UserMessage: {
        // A run starts (and shows its placeholder) before the step that takes
        // up the user's words: keep the words above the reply they prompt.
        const user: Item = { key: e.seq, kind: 'user', text: String(p.text ?? ''), streaming: false };
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
        const d = p as AssistantDeltaPayload;
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
        const m = p as AssistantMessagePayload;
        const final: Partial<Item> = {
          text: String(m.content ?? ''),
          thinking: m.thinking ? String(m.thinking) : undefined,
          usage: m.usage,
          streaming: false,
        };
        let i = openItem(runId);
        if (i >= 0) update(i, final);
        else {
          items.push({ key: e.seq, kind: 'assistant', runId, ...final } as Item);
          i = items.length - 1;
        }
        // A step that only called tools has no text to show.
        if (!items[i].text && !items[i].thinking) items.splice(i, 1);
        break;
      }

      case EventType.RunFinished: {
        const f = p as RunFinishedPayload;
        const i = openItem(runId);
        let empty = true;
        if (i >= 0) {
          empty = !items[i].text && !items[i].thinking;
          if (empty) items.splice(i, 1);
          else update(i, { streaming: false, stopped: f.reason === 'cancelled' ? true : undefined });
        }
        if (f.reason === 'cancelled' && empty) {
          items.push({ key: e.seq, kind: 'notice', text: STOPPED_NOTICE, runId, streaming: false });
        }
        if (f.reason === 'error') {
          const text = typeof f.error === 'string' && f.error.trim() ? f.error : FALLBACK_ERROR;
          items.push({ key: e.seq, kind: 'error', text, runId, streaming: false });
        }
        if (activeRun === runId) activeRun = null;
        lastFinishedSeq = e.seq;
        break;
      }

      default:
        // Unknown types are ignored (the kernel is the strict one).
        break;
    }
  }
  return { title, items, activeRun, lastSeq, lastFinishedSeq };
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
