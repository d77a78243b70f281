// Pure renderers for tool calls and permission questions: folded state in,
// display data out. The components only lay these out, so a live run and a
// replayed log look the same, and every label is tested (test/toolcard.test.ts).
import type { CallState, PermissionState } from './conversation';
import type { ToolCall } from './protocol';

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

/** Everything a tool-call card shows. Pure: the same call gives the same card. */
export function toolCard(call: CallState): ToolCardView {
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
    summary: summarizeArgs(call.arguments),
    args: foldText(prettyArgs(call.arguments)),
    chip,
    chipLabel: label,
    tone,
    note,
    duration: call.phase === 'finished' ? durationLabel(call.durationNs) : '',
    attempts: Number.isFinite(attempts) && attempts > 1 ? `${attempts} attempts` : '',
    result,
    busy: chip === 'waiting' || chip === 'asking' || chip === 'running',
  };
}

/** One top-level argument: strings as they are (real line breaks), anything else as pretty JSON. */
export interface ArgField {
  key: string;
  value: Folded;
}

/** One call of a permission question: its name and all of its arguments. */
export interface AskedCallView {
  id: string;
  name: string;
  summary: string;
  /** Pretty arguments; long ones fold behind "Show all", never cut for good. */
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

/** Lines of arguments a permission card shows before "Show all". */
export const PERMISSION_PREVIEW_LINES = 16;

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

/** The fields of a JSON object's text, or null when it is not one. */
export function argFields(text: string, maxLines = PERMISSION_PREVIEW_LINES): ArgField[] | null {
  const p = parseJSON(text.trim());
  if (!p.ok || !p.value || typeof p.value !== 'object' || Array.isArray(p.value)) return null;
  return Object.entries(p.value as Record<string, unknown>).map(([key, v]) => ({
    key,
    value: foldText(typeof v === 'string' ? v : JSON.stringify(v, null, 2), maxLines, 4000),
  }));
}

export function permissionView(p: PermissionState): PermissionView {
  const calls = p.calls.map((c: ToolCall) => ({
    id: c.id,
    name: c.name || 'tool',
    summary: summarizeArgs(c.arguments),
    args: foldText(prettyArgs(c.arguments), PERMISSION_PREVIEW_LINES, 4000),
    fields: argFields(c.arguments),
  }));
  const title =
    calls.length === 1 ? `Allow Quire to run ${calls[0].name}?` : `Allow Quire to run these ${calls.length} actions?`;
  const record = permissionRecord(p);
  return { title, calls, open: record === null, record };
}
