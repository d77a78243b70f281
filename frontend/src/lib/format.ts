// Small pure helpers for labels.
import type { Usage } from './protocol';

/** "128 prompt · 42 output tokens · 1.3 s", or '' without usage (or an all-zero one, as a cut-off reply has). */
export function usageLabel(u: Usage | undefined | null): string {
  if (!u) return '';
  if (!Number(u.promptTokens) && !Number(u.outputTokens) && !Number(u.durationNs)) return '';
  const parts: string[] = [];
  const p = Number(u.promptTokens);
  const o = Number(u.outputTokens);
  if (Number.isFinite(p) && Number.isFinite(o)) parts.push(`${p} prompt · ${o} output tokens`);
  else if (Number.isFinite(o)) parts.push(`${o} output tokens`);
  const ns = Number(u.durationNs);
  if (Number.isFinite(ns) && ns > 0) {
    const s = ns / 1e9;
    parts.push(s >= 10 ? `${Math.round(s)} s` : `${s.toFixed(1)} s`);
  }
  return parts.join(' · ');
}

/** The line under a pending (not yet taken up) message. */
export function pendingLabel(intent: string, runGoing: boolean): string {
  if (intent === 'steer' || intent === 'inject') return 'Will be added to the current request';
  return runGoing ? 'Queued: runs after the current request' : 'Sending…';
}

/**
 * A folder's last path segment, for a short label: "/home/ann/Notes" →
 * "Notes", "C:\Users\ann\Notes\" → "Notes", "/" → "/", "C:\" → "C:".
 */
export function folderName(path: string): string {
  const p = path.trim();
  if (!p) return '';
  const parts = p.split(/[\\/]+/).filter(Boolean);
  if (parts.length === 0) return p[0]; // the root: "/" or "\"
  return parts[parts.length - 1];
}

const STRATEGY_LABEL: Readonly<Record<string, string>> = {
  summarise: 'summarised',
  'drop-logs': 'long tool output dropped',
  'extract-facts': 'facts moved to working memory',
  cut: 'a long message cut to fit',
};

const TRIGGER_LABEL: Readonly<Record<string, string>> = {
  size: 'the context was getting full',
  pollution: 'the context was crowded by one kind of content',
  overflow: 'the model refused a request longer than its context',
};

/**
 * The headline of a compaction marker: "Earlier messages compacted
 * (summarised) because the context was getting full · 3,121 → 2,704 tokens".
 */
export function compactionLabel(c: { strategy: string; trigger: string; beforeTokens?: number; afterTokens?: number }): string {
  let s = 'Earlier messages compacted';
  const how = STRATEGY_LABEL[c.strategy];
  if (how) s += ` (${how})`;
  const why = TRIGGER_LABEL[c.trigger];
  if (why) s += ` because ${why}`;
  if (Number.isFinite(c.beforeTokens) && Number.isFinite(c.afterTokens)) {
    s += ` · ${c.beforeTokens!.toLocaleString('en-US')} → ${c.afterTokens!.toLocaleString('en-US')} tokens`;
  }
  return s;
}
