// The inspector's pure logic ("what the model saw"): which calls belong to
// a reply, what each message's origin is in words, the size bar against
// the model's window, and the diff's summary. Inspector.svelte renders it.
import type { Call, CallMessage, CallOrigin, CallSummary, CallTokens } from './protocol';

/**
 * The calls a reply's inspector shows (those of its run, oldest first)
 * and the index of the one to open first: the call of the reply's step
 * that was answered (a retried attempt comes before it), else the last of
 * that step, else the last call of the run.
 */
export function callsOfReply(calls: readonly CallSummary[], runId: string, step?: number): { calls: CallSummary[]; open: number } {
  // No run named: every call of the session (a batch worker's whole session).
  const ofRun = runId ? calls.filter((c) => c.runId === runId) : [...calls];
  let open = -1;
  for (let i = 0; i < ofRun.length; i++) {
    if (step === undefined || ofRun[i].step !== step) continue;
    if (open < 0 || ofRun[i].outcome === 'replied' || ofRun[open].outcome !== 'replied') open = i;
  }
  if (open < 0) open = ofRun.length - 1;
  return { calls: ofRun, open };
}

/** What answered a call, in words. */
export function outcomeLabel(outcome: string): string {
  switch (outcome) {
    case 'replied':
      return 'answered';
    case 'failed':
      return 'failed';
    case 'retried':
      return 'failed, tried again';
    case 'ended':
      return 'stopped before an answer';
    case 'open':
      return 'answer still coming';
  }
  return outcome;
}

/** "Step 2", "Step 2, attempt 2" (a retry), for a call's heading. */
export function stepLabel(c: Pick<CallSummary, 'step' | 'attempt'>): string {
  return c.attempt > 0 ? `Step ${c.step}, attempt ${c.attempt + 1}` : `Step ${c.step}`;
}

/**
 * Where a message came from, in words: "from event #12", "tool result of
 * read_note (event #15)", "compaction summary of events #3–#9"… A
 * message of the conversation a branch was made from says so.
 */
export function originLabel(o: CallOrigin, m?: Pick<CallMessage, 'toolName'>): string {
  const at = `event #${o.seq}`;
  let words: string;
  switch (o.event) {
    case 'context.text': {
      const parts = o.parts?.length ? `: ${o.parts.join(', ')}` : '';
      words = `system text, zone ${o.zone || '?'}${parts} (${at})`;
      break;
    }
    case 'user.message':
      words = `the user's message, from ${at}`;
      break;
    case 'assistant.message':
      words = `the assistant's reply, from ${at}`;
      break;
    case 'tool.result':
      words = `tool result of ${m?.toolName || 'a tool'}, from ${at}`;
      break;
    case 'tool.refused':
      words = `refused call of ${m?.toolName || 'a tool'}, from ${at}`;
      break;
    case 'history.replace': {
      const range = o.to && o.to !== o.from ? `events #${o.from}–#${o.to}` : `event #${o.from}`;
      const how = o.strategy ? `, ${o.strategy}` : '';
      words = `compaction summary of ${range}${how} (${at})`;
      break;
    }
    default:
      words = o.event ? `from ${o.event} ${at}` : `from ${at}`;
  }
  return o.session ? `${words} of the conversation this one branched from` : words;
}

/** One part of the size bar. */
export interface TokenPart {
  key: 'system' | 'history' | 'tools';
  label: string;
  tokens: number;
  /** Share of the window, 0–100. */
  pct: number;
}

/** The request's size against the model's window, for the bar and its label. */
export interface TokenBar {
  parts: TokenPart[];
  /** Share of the window used, 0–100 (capped; `over` says when it is more). */
  used: number;
  over: boolean;
  label: string;
}

export function tokenBar(t: CallTokens): TokenBar {
  const window = t.window > 0 ? t.window : 0;
  const pct = (n: number) => (window ? Math.min(100, (n / window) * 100) : 0);
  const parts: TokenPart[] = [
    { key: 'system', label: 'system text', tokens: t.system, pct: pct(t.system) },
    { key: 'history', label: 'conversation', tokens: t.history, pct: pct(t.history) },
    { key: 'tools', label: 'tools', tokens: t.tools, pct: pct(t.tools) },
  ];
  const fmt = (n: number) => n.toLocaleString('en-US');
  const about = t.estimate ? 'about ' : '';
  let label = window ? `${about}${fmt(t.total)} of ${fmt(window)} tokens` : `${about}${fmt(t.total)} tokens (window unknown)`;
  if (t.estimate) label += ' (Quire’s estimate)';
  if (t.counted > 0) label += ` · the model counted ${fmt(t.counted)}`;
  return { parts, used: pct(t.total), over: window > 0 && t.total > window, label };
}

/** "Compared with call 3: 2 messages added, …", or '' for the first call. */
export function diffSummary(c: Pick<Call, 'diff'>): string {
  const d = c.diff;
  if (!d) return '';
  const bits: string[] = [];
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  if (d.added) bits.push(`${n(d.added, 'message')} added`);
  if (d.changed) bits.push(`${n(d.changed, 'message')} changed`);
  const removed = d.removed ?? [];
  const replaced = removed.filter((r) => r.replacedBy >= 0).length;
  if (replaced) bits.push(`${n(replaced, 'message')} replaced by a summary`);
  if (removed.length - replaced) bits.push(`${n(removed.length - replaced, 'message')} removed`);
  if (d.systemChanged) bits.push('system text changed');
  if (d.toolsAdded?.length) bits.push(`tools added: ${d.toolsAdded.join(', ')}`);
  if (d.toolsRemoved?.length) bits.push(`tools removed: ${d.toolsRemoved.join(', ')}`);
  if (d.optionsChanged?.length) bits.push(`options changed: ${d.optionsChanged.join(', ')}`);
  return `Compared with call ${d.previous}: ${bits.length ? bits.join(', ') : 'the same request'}.`;
}

/** A message's change badge, or '' when it is as it was (or there is no call before). */
export function changeLabel(c: Pick<Call, 'diff'>, m: Pick<CallMessage, 'change'>): string {
  if (!c.diff) return '';
  return m.change === 'added' ? 'new' : m.change === 'changed' ? 'changed' : '';
}

/** "1.2 s", "340 ms", or '' for nothing measured. */
export function duration(ns: number | undefined): string {
  if (!ns || ns <= 0) return '';
  const ms = ns / 1e6;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return s >= 10 ? `${Math.round(s)} s` : `${s.toFixed(1)} s`;
}

/** "12.3 KB", for a size in bytes. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The options a request carried, in words ("num_ctx 8192 · temperature 0.7 · think on"). */
export function optionsLabel(c: Pick<Call, 'model' | 'options'>): string {
  const o = c.options;
  const bits = [c.model];
  if (o.numCtx) bits.push(`num_ctx ${o.numCtx}`);
  bits.push(o.temperature === undefined || o.temperature === null ? "the model's own temperature" : `temperature ${o.temperature}`);
  if (o.think !== undefined && o.think !== null) bits.push(`think ${o.think ? 'on' : 'off'}`);
  return bits.join(' · ');
}

/**
 * Puts text on the clipboard: the async Clipboard API where the page may
 * use it (a browser; WebKitGTK in the window), else a hidden textarea and
 * the copy command. Resolves false when neither worked.
 */
export async function copyText(text: string, doc: Document = document): Promise<boolean> {
  try {
    if (doc.defaultView?.navigator?.clipboard?.writeText) {
      await doc.defaultView.navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  const area = doc.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  doc.body.appendChild(area);
  area.select();
  try {
    return doc.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
