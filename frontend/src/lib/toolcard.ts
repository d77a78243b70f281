// Pure renderers for tool calls and permission questions: folded state in,
// display data out. The components only lay these out, so a live run and a
// replayed log look the same, and every label is tested (test/toolcard.test.ts).
//
// Some tools get a card of their own kind (`detail`), read from their
// result's data (docs/PROTOCOL.md, "Tool data"): update_todos a checklist,
// report_state "The assistant is unsure", a note tool's change one plain line
// with Undo. The renderer says whether Undo is offered; the component asks and undoes.
import type { CallState, Conversation, PermissionState } from './conversation';
import { isObjectOf, type ChangeKind, type NoteChange, type Question, type StateReport, type TodoItem, type TodoPlan } from './protocol';

/** The chip of a call card. */
export type ChipKind = 'waiting' | 'asking' | 'running' | 'done' | 'partial' | 'failed' | 'denied' | 'cancelled' | 'unknown';
export type Tone = 'neutral' | 'ok' | 'warn' | 'danger';

/** A block of text that may be too long to show whole at first. */
export interface Folded {
  /** All of it. */
  full: string;
  /** What is shown before "Show all" (the first lines, or all of it). */
  preview: string;
  /** True when `preview` leaves something out. */
  long: boolean;
  /** How many lines `full` has. */
  lines: number;
}

export interface ToolCardView {
  id: string;
  name: string;
  /** One line about the arguments: `notes/garden.md`, `path: a.md · limit: 20`. */
  summary: string;
  /** The arguments, pretty-printed JSON (or the raw text when it is not JSON). */
  args: Folded;
  chip: ChipKind;
  chipLabel: string;
  tone: Tone;
  /** A sentence under the chip, or '' ("It may or may not have happened." for unknown). */
  note: string;
  /** "340 ms", "1.2 s", or ''. */
  duration: string;
  /** "3 attempts" when it took more than one, else ''. */
  attempts: string;
  /** The result's content or the refusal's reason; null while there is none. */
  result: Folded | null;
  /** True while the call is not finished (running or waiting). */
  busy: boolean;
  /** A card of its own kind (a plan, a report, a note change), or null: the plain card. */
  detail: CardDetail | null;
}

/** update_todos: the plan as a checklist. */
export interface ChecklistDetail {
  kind: 'checklist';
  title: string;
  items: TodoItem[];
  done: number;
  total: number;
  /** "2 of 5 done". */
  progress: string;
}

/** report_state: the assistant says it is unsure. */
export interface UnsureDetail {
  kind: 'unsure';
  /** "The assistant is unsure". */
  title: string;
  /** State, then plan and confusion when given: label and the assistant's words. */
  fields: { key: keyof StateReport; label: string; text: string }[];
}

/** A note tool's change, said plainly, and how to undo it. */
export interface ChangeDetail {
  kind: 'change';
  /** The change's id (what the undo tool takes). */
  changeId: string;
  /** "Moved inbox/a.md → projects/a.md", "Edited plan.md", "Created ideas.md". */
  summary: string;
  /** For a change made by undo: "Undid change chg_…". */
  note: string;
  /** A later undo reverted it (and was not itself undone). */
  undone: boolean;
  /** Undo is offered: the change has an id and was not undone. */
  undoable: boolean;
}

export type CardDetail = ChecklistDetail | UnsureDetail | ChangeDetail;

/** What a card needs to know of the rest of the conversation. */
export interface CardContext {
  /** Ids of the changes a later undo reverted (undoneChanges()). */
  undone?: ReadonlySet<string>;
}

/** Lines shown of a folded block before "Show all". */
export const PREVIEW_LINES = 6;
/** Characters shown of a folded block before "Show all" (very long lines). */
export const PREVIEW_CHARS = 600;
/** Longest summary of the arguments. */
export const SUMMARY_CHARS = 90;

/** Splits `text` into what shows at first and the rest. */
export function foldText(text: string, maxLines = PREVIEW_LINES, maxChars = PREVIEW_CHARS): Folded {
  const full = text.replace(/\s+$/, '');
  const all = full === '' ? [] : full.split('\n');
  let preview = all.slice(0, maxLines).join('\n');
  if (preview.length > maxChars) preview = preview.slice(0, maxChars).replace(/\s+$/, '') + '…';
  return { full, preview, long: preview !== full, lines: all.length };
}

function parseJSON(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The arguments as people read them: pretty JSON, or the text as it came. */
export function prettyArgs(text: string): string {
  const t = text.trim();
  if (!t) return '';
  const p = parseJSON(t);
  return p.ok ? JSON.stringify(p.value, null, 2) : t;
}

function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max - 1).trimEnd() + '…' : one;
}

function brief(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.length <= 3 && v.every((x) => typeof x !== 'object') ? v.join(', ') : `[${v.length} items]`;
  const n = Object.keys(v).length;
  return `{${n} ${n === 1 ? 'field' : 'fields'}}`;
}

/**
 * A short human summary of a call's arguments: the value alone when there is
 * one field, `key: value · key: value` otherwise, on one line, clipped.
 */
export function summarizeArgs(text: string, max = SUMMARY_CHARS): string {
  const t = text.trim();
  if (!t) return 'no arguments';
  const p = parseJSON(t);
  if (!p.ok) return clip(t, max);
  const v = p.value;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return 'no arguments';
    if (entries.length === 1) return clip(brief(entries[0][1]), max);
    return clip(entries.map(([k, x]) => `${k}: ${brief(x)}`).join(' · '), max);
  }
  return clip(brief(v), max);
}

/** "340 ms", "1.2 s", "12 s", "2 min 5 s"; '' when unknown. */
export function durationLabel(ns: number | undefined | null): string {
  const n = Number(ns);
  if (!Number.isFinite(n) || n <= 0) return '';
  const ms = n / 1e6;
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest ? `${m} min ${rest} s` : `${m} min`;
}

const CHIPS: Record<ChipKind, { label: string; tone: Tone }> = {
  waiting: { label: 'waiting', tone: 'neutral' },
  asking: { label: 'needs your OK', tone: 'warn' },
  running: { label: 'running…', tone: 'neutral' },
  done: { label: 'done', tone: 'ok' },
  partial: { label: 'partly done', tone: 'warn' },
  failed: { label: 'failed', tone: 'danger' },
  denied: { label: 'denied', tone: 'warn' },
  cancelled: { label: 'cancelled', tone: 'neutral' },
  unknown: { label: 'unknown', tone: 'warn' },
};

/** The chip of a call, from its phase and status. */
export function chipOf(call: Pick<CallState, 'phase' | 'status'>): ChipKind {
  switch (call.phase) {
    case 'requested':
      return 'waiting';
    case 'asking':
      return 'asking';
    case 'running':
      return 'running';
    case 'finished':
      switch (call.status) {
        case 'partial':
          return 'partial';
        case 'failure':
          return 'failed';
        case 'cancelled':
          return 'cancelled';
        default: // success, empty, or a status this page does not know
          return 'done';
      }
    case 'refused':
      switch (call.status) {
        case 'denied':
          return 'denied';
        case 'cancelled':
          return 'cancelled';
        case 'unknown_completion':
          return 'unknown';
        default:
          return 'failed';
      }
  }
  return 'waiting';
}

// ---- Tool data -------------------------------------------------------------

export const UNSURE_TITLE = 'The assistant is unsure';
export const PLAN_TITLE = 'Plan';
const CHANGE_KINDS: ReadonlySet<string> = new Set<ChangeKind>(['write', 'move', 'mkdir', 'rmdir']);


/** The arguments' JSON text as a value, or undefined. */
function argsValue(text: string): unknown {
  const p = parseJSON(text.trim());
  return p.ok ? p.value : undefined;
}

/** A plan from update_todos' data (or arguments), or null when it is not one. */
export function asPlan(v: unknown): TodoPlan | null {
  if (!isObjectOf<TodoPlan>(v) || !Array.isArray(v.items)) return null;
  const items: TodoItem[] = [];
  for (const it of v.items) {
    if (!isObjectOf<TodoItem>(it) || typeof it.text !== 'string' || !it.text.trim()) continue;
    items.push({ text: it.text, done: it.done === true });
  }
  return { items };
}

/** A report from report_state's data (or arguments), or null. */
export function asReport(v: unknown): StateReport | null {
  if (!isObjectOf<StateReport>(v) || typeof v.state !== 'string' || !v.state.trim()) return null;
  const r: StateReport = { state: v.state };
  if (typeof v.plan === 'string' && v.plan.trim()) r.plan = v.plan;
  if (typeof v.confusion === 'string' && v.confusion.trim()) r.confusion = v.confusion;
  return r;
}

/** A note tool's change from its result's data, or null (a read's data, a failure's). */
export function asChange(v: unknown): NoteChange | null {
  if (!isObjectOf<NoteChange>(v)) return null;
  const { id, tool, kind, path } = v;
  if (typeof id !== 'string' || !id || typeof path !== 'string' || !path || typeof kind !== 'string' || !CHANGE_KINDS.has(kind)) {
    return null;
  }
  const text = (x: unknown): string | null | undefined => (x === null || typeof x === 'string' ? x : undefined);
  const before = text(v.before);
  const after = text(v.after);
  // Go writes both for every change; a write without them says nothing a card could show.
  if (kind === 'write' && (before === undefined || after === undefined)) return null;
  const c: NoteChange = { id, tool: typeof tool === 'string' ? tool : '', kind: kind as ChangeKind, path, before: before ?? null, after: after ?? null };
  if (typeof v.from === 'string' && v.from) c.from = v.from;
  if (typeof v.undoes === 'string' && v.undoes) c.undoes = v.undoes;
  return c;
}

/** "2 of 5 done"; "No items" for an empty plan. */
export function progressLabel(done: number, total: number): string {
  return total === 0 ? 'No items' : `${done} of ${total} done`;
}

/** What a write by each tool did to the note at `path`, when it existed before and after. */
const WRITE_VERBS: Readonly<Record<string, (path: string) => string>> = {
  create_note: (p) => `Created ${p}`,
  append_note: (p) => `Added to ${p}`,
  edit_note: (p) => `Edited ${p}`,
  set_tags: (p) => `Set the tags of ${p}`,
  link_notes: (p) => `Added a link to ${p}`,
  undo: (p) => `Put back the earlier text of ${p}`,
};

/** A change said plainly: "Moved inbox/a.md → projects/a.md", "Edited plan.md", "Created ideas.md". */
export function changeSummary(c: NoteChange): string {
  switch (c.kind) {
    case 'move':
      return c.from ? `Moved ${c.from} → ${c.path}` : `Moved to ${c.path}`;
    case 'mkdir':
      return `Made the folder ${c.path}`;
    case 'rmdir':
      return `Removed the folder ${c.path}`;
    case 'write':
      if (c.after === null) return `Removed ${c.path}`;
      if (c.before === null) return c.tool === 'undo' ? `Put back ${c.path}` : `Created ${c.path}`;
      return (WRITE_VERBS[c.tool] ?? ((p: string) => `Edited ${p}`))(c.path);
  }
  return `Changed ${c.path}`;
}

/** True when the call ended in a way that makes its data worth showing (not refused, not failed). */
function usable(call: CallState): boolean {
  if (call.phase === 'refused') return false;
  if (call.phase === 'finished') return call.status !== 'failure' && call.status !== 'cancelled';
  return true;
}

/**
 * The plan of an update_todos call: its result's data, or, until that
 * arrives, its arguments (they are the same list). Null for another tool, a
 * refused or failed call, or a plan that cannot be read.
 */
export function planOf(call: CallState): TodoPlan | null {
  if (call.name !== 'update_todos' || !usable(call)) return null;
  return asPlan(call.data) ?? (call.phase === 'finished' && call.data !== undefined ? null : asPlan(argsValue(call.arguments)));
}

/** The report of a report_state call (data, else arguments), or null. */
export function reportOf(call: CallState): StateReport | null {
  if (call.name !== 'report_state' || !usable(call)) return null;
  return asReport(call.data) ?? (call.phase === 'finished' && call.data !== undefined ? null : asReport(argsValue(call.arguments)));
}

/** The change a finished note write made (its result's data), or null. */
export function changeOf(call: CallState): NoteChange | null {
  if (call.phase !== 'finished' || call.status === 'failure' || call.status === 'cancelled') return null;
  return asChange(call.data);
}

export function checklist(plan: TodoPlan): ChecklistDetail {
  const items = plan.items ?? [];
  const done = items.filter((i) => i.done).length;
  return { kind: 'checklist', title: PLAN_TITLE, items, done, total: items.length, progress: progressLabel(done, items.length) };
}

const REPORT_LABELS: [keyof StateReport, string][] = [
  ['state', 'Where it is'],
  ['plan', 'What it means to do'],
  ['confusion', 'What does not add up'],
];

/** The card of a call of its own kind, or null. */
export function cardDetail(call: CallState, ctx: CardContext = {}): CardDetail | null {
  const plan = planOf(call);
  if (plan) return checklist(plan);
  const report = reportOf(call);
  if (report) {
    const fields = REPORT_LABELS.filter(([k]) => report[k]).map(([key, label]) => ({ key, label, text: report[key] ?? '' }));
    return { kind: 'unsure', title: UNSURE_TITLE, fields };
  }
  const change = changeOf(call);
  if (change) {
    const undone = ctx.undone?.has(change.id) ?? false;
    return {
      kind: 'change',
      changeId: change.id,
      summary: changeSummary(change),
      note: change.undoes ? `Undid change ${change.undoes}` : '',
      undone,
      undoable: !undone,
    };
  }
  return null;
}

/** Every call of the conversation, in order (steps in order, calls in call order). */
function* callsOf(conv: Conversation | null): Generator<CallState> {
  for (const it of conv?.items ?? []) for (const c of it.calls ?? []) yield c;
}

/**
 * Ids of the changes that stand undone: reverted by an undo that was not
 * itself undone later (undoing an undo puts the first change back).
 */
export function undoneChanges(conv: Conversation | null): Set<string> {
  const changes = new Map<string, NoteChange>();
  const undone = new Set<string>();
  // The user's own undos (the Changes list, a card's Undo): note.undone
  // events, each naming the change it reverted and its reverse change.
  for (const e of conv?.events ?? []) {
    if (e.type !== 'note.undone') continue;
    const reverse = asChange(e.payload.change);
    if (reverse) changes.set(reverse.id, { ...reverse, undoes: e.payload.undoes });
    undone.add(e.payload.undoes);
  }
  for (const call of callsOf(conv)) {
    const c = changeOf(call);
    if (!c) continue;
    changes.set(c.id, c);
    if (!c.undoes) continue;
    undone.add(c.undoes);
    // Undoing an undo re-applies what that undo had reverted.
    const reverted = changes.get(c.undoes)?.undoes;
    if (reverted) undone.delete(reverted);
  }
  return undone;
}

/** The latest plan of the conversation (the last update_todos call with one), or null. */
export function latestPlan(conv: Conversation | null): ChecklistDetail | null {
  let plan: TodoPlan | null = null;
  for (const call of callsOf(conv)) plan = planOf(call) ?? plan;
  return plan ? checklist(plan) : null;
}

/** Everything a tool-call card shows. Pure: the same call (and context) gives the same card. */
export function toolCard(call: CallState, ctx: CardContext = {}): ToolCardView {
  const chip = chipOf(call);
  const { label, tone } = CHIPS[chip];
  let note = '';
  if (chip === 'unknown') note = 'It may or may not have happened.';
  else if (chip === 'asking') note = 'Waiting for you to allow it.';
  let result: Folded | null = null;
  if (call.phase === 'finished') {
    const text = call.content ?? '';
    result = foldText(text.trim() ? text : call.status === 'empty' ? '(no output)' : '(nothing returned)');
  } else if (call.phase === 'refused' && call.content?.trim()) {
    result = foldText(call.content);
  }
  const attempts = Number(call.attempts);
  return {
    id: call.id,
    name: call.name || 'tool',
    // Escaped as on the permission card: a name cannot reorder or hide text here either.
    summary: visible(summarizeArgs(call.arguments)),
    args: foldText(visible(prettyArgs(call.arguments))),
    chip,
    chipLabel: label,
    tone,
    note,
    duration: call.phase === 'finished' ? durationLabel(call.durationNs) : '',
    attempts: Number.isFinite(attempts) && attempts > 1 ? `${attempts} attempts` : '',
    result,
    busy: chip === 'waiting' || chip === 'asking' || chip === 'running',
    detail: cardDetail(call, ctx),
  };
}

/** One top-level argument: strings as they are (real line breaks), anything else as pretty JSON. */
export interface ArgField {
  key: string;
  value: Folded;
}

/**
 * Escapes what would not read as itself: control characters (but newline and
 * tab), format characters (zero-width spaces and joiners, bidirectional
 * controls, the BOM, soft hyphens), line and paragraph separators, letters
 * that draw blank, private-use, unassigned and lone surrogate code points.
 * Each becomes `\u200b` (`\U0001f3f4` past the first plane), so a name in a
 * question cannot reorder or hide the text around it. Go's dialog does the
 * same (`host/visible.go` `Visible`).
 */
export function visible(text: string): string {
  let out = '';
  for (const ch of text) {
    if (ch === '\n' || ch === '\t' || !INVISIBLE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  }
  return out;
}
const INVISIBLE = /^(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]|[\u115f\u1160\u3164\uffa0\u2800])$/u;

/** One call of a permission question: its name and all of its arguments. */
export interface AskedCallView {
  id: string;
  name: string;
  summary: string;
  /**
   * What the call would do, whole (for a note: every line it writes, or the
   * diff), escaped; from the desktop window's question. '' when not sent.
   */
  description: string;
  /** Pretty arguments, whole and escaped: nothing is folded before an answer. */
  args: Folded;
  /** The arguments field by field when they are a JSON object, else null (show `args`). */
  fields: ArgField[] | null;
}

export interface PermissionView {
  /** "Allow Quire to run write_file?" or "…these 2 actions?". */
  title: string;
  calls: AskedCallView[];
  /** True while it waits for an answer. */
  open: boolean;
  /** Once closed: the one-line record. */
  record: { text: string; tone: Tone } | null;
}

/** The one-line record of an answered (or closed) question, or null while it is open. */
export function permissionRecord(p: Pick<PermissionState, 'answer' | 'closed'>): { text: string; tone: Tone } | null {
  const a = p.answer;
  if (a) {
    if (a.byDefault) {
      return a.allowed
        ? { text: 'No answer in time, allowed by default', tone: 'neutral' }
        : { text: 'No answer in time, not run', tone: 'neutral' };
    }
    if (a.allowed) return { text: 'Allowed', tone: 'ok' };
    const why = a.feedback?.trim();
    return { text: why ? `Not allowed — ${why}` : 'Not allowed', tone: 'warn' };
  }
  if (p.closed) return { text: 'Not answered: the request stopped first, nothing was run', tone: 'neutral' };
  return null;
}

/** A text shown whole: a yes is never given to a part that was folded away. */
function whole(text: string): Folded {
  return foldText(visible(text), Infinity, Infinity);
}

/** The fields of a JSON object's text, or null when it is not one. */
export function argFields(text: string): ArgField[] | null {
  const p = parseJSON(text.trim());
  if (!p.ok || !p.value || typeof p.value !== 'object' || Array.isArray(p.value)) return null;
  return Object.entries(p.value as Record<string, unknown>).map(([key, v]) => ({
    key: visible(key),
    value: whole(typeof v === 'string' ? v : JSON.stringify(v, null, 2)),
  }));
}

/**
 * The card of a permission question. `question` is the desktop window's
 * (with each call's whole description), when it sent one.
 */
export function permissionView(p: PermissionState, question: Question | null = null): PermissionView {
  const calls = p.calls.map((c): AskedCallView => {
    const j = question?.calls?.findIndex((qc) => qc.id === c.id) ?? -1;
    const description = j >= 0 ? (question?.descriptions?.[j] ?? '') : '';
    return {
      id: c.id,
      name: visible(c.name || 'tool'),
      summary: visible(summarizeArgs(c.arguments)),
      description: description ? visible(description) : '',
      args: whole(prettyArgs(c.arguments)),
      fields: argFields(c.arguments),
    };
  });
  const title =
    calls.length === 1 ? `Allow Quire to run ${calls[0].name}?` : `Allow Quire to run these ${calls.length} actions?`;
  const record = permissionRecord(p);
  return { title, calls, open: record === null, record };
}
