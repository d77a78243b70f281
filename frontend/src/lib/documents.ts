// Pure renderers for the documents panel, the indexing bar and the source
// viewer: state in, display data out (tested in test/documents.test.ts).
import type { Citation, DocumentInfo, DocumentStatus, DocumentsState, IndexProgress } from './protocol';

export type BarTone = 'neutral' | 'ok' | 'warn' | 'danger';

/** What the indexing bar shows. */
export interface ProgressView {
  /** False when there is nothing to show (idle, or a pass that had no files). */
  show: boolean;
  running: boolean;
  /** 0–100, or null while the total is not known yet (scanning). */
  percent: number | null;
  /** "Indexing 3 of 10 files", "Indexed 10 files", … */
  label: string;
  /** The current file and the time left, or the outcome's detail. */
  detail: string;
  tone: BarTone;
}

/** "about 40 s left", "about 3 min left", "about 2 h left", or '' when unknown. */
export function etaLabel(ms: number | null | undefined): string {
  const s = Math.round(Number(ms) / 1000);
  if (!Number.isFinite(s) || s < 1) return '';
  if (s < 60) return `about ${s} s left`;
  if (s < 3600) return `about ${Math.round(s / 60)} min left`;
  return `about ${Math.round(s / 360) / 10} h left`;
}

function files(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}

/** The last segment of a path ("/a/b/c.md" → "c.md"). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : path;
}

export function progressView(p: IndexProgress | null | undefined): ProgressView {
  const none: ProgressView = { show: false, running: false, percent: null, label: '', detail: '', tone: 'neutral' };
  if (!p) return none;
  const total = Math.max(0, p.total | 0);
  const done = Math.min(total, Math.max(0, p.done | 0));
  const failed = Math.max(0, p.failed | 0);
  const percent = total > 0 ? Math.round((done / total) * 100) : null;
  const failedNote = failed > 0 ? ` · ${failed} could not be read` : '';
  const skipped = Math.max(0, p.skipped ?? 0);
  const skippedNote = skipped > 0 ? `${files(skipped)} skipped (not a format Quire reads)` : '';
  if (p.running) {
    if (p.phase === 'scanning' || total === 0) {
      return { show: true, running: true, percent: null, label: 'Looking for new and changed files…', detail: '', tone: 'neutral' };
    }
    const detail = [p.currentFile ? baseName(p.currentFile) : '', etaLabel(p.etaMs)].filter(Boolean).join(' · ');
    return { show: true, running: true, percent, label: `Indexing ${done} of ${files(total)}`, detail: detail + failedNote, tone: 'neutral' };
  }
  const unreadable = failed + Math.max(0, p.refused ?? 0);
  switch (p.phase) {
    case 'done':
      if (total === 0 && unreadable === 0 && skipped === 0) {
        // A refresh with nothing to do shows nothing; a drop says it was seen.
        if (!p.paths?.length) return none;
        return { show: true, running: false, percent: 100, label: 'Nothing new to index', detail: 'Those documents are up to date', tone: 'ok' };
      }
      // Skipped files are not a failure: said, so a drop of only those is not
      // taken for ignored, but the bar stays calm.
      const unreadableNote = unreadable > 0 ? `${files(unreadable)} could not be read; see the documents panel` : '';
      return {
        show: true,
        running: false,
        percent: 100,
        label: total === 0 ? (unreadable > 0 ? 'Nothing could be indexed' : 'Nothing to index') : `Indexed ${files(total)}`,
        detail: [unreadableNote, skippedNote].filter(Boolean).join(' · '),
        tone: unreadable > 0 ? 'warn' : 'ok',
      };
    case 'cancelled':
      return {
        show: true,
        running: false,
        percent,
        label: 'Indexing stopped',
        detail: `${done} of ${files(total)} done; the rest is picked up next time`,
        tone: 'warn',
      };
    case 'failed':
      return { show: true, running: false, percent, label: 'Indexing stopped on an error', detail: p.error ?? '', tone: 'danger' };
    default:
      return none;
  }
}

const STATUS: Record<DocumentStatus, { label: string; tone: BarTone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  parsed: { label: 'Searchable by words', tone: 'neutral' },
  embedded: { label: 'Almost ready', tone: 'neutral' },
  done: { label: 'Ready', tone: 'ok' },
  failed: { label: 'Failed', tone: 'danger' },
  skipped: { label: 'Skipped', tone: 'neutral' },
};

/** The chip of a document's status. */
export function statusView(status: string): { label: string; tone: BarTone } {
  return STATUS[status as DocumentStatus] ?? { label: status || 'Unknown', tone: 'neutral' };
}

/** One line saying which embedder makes the vectors. */
export function embedderLabel(st: Pick<DocumentsState, 'embedder' | 'offline'> | null): string {
  if (!st || !st.embedder) return '';
  if (st.offline) return 'Meaning search: the built-in offline embedder (no embedding model found in Ollama)';
  return `Meaning search: ${st.embedder.replace(/^ollama:/, 'Ollama model ')}`;
}

/** Counts for the panel's header: "12 documents · 1 failed · 3 skipped" (skipped files are not documents). */
export function countsLabel(docs: readonly DocumentInfo[]): string {
  const failed = docs.filter((d) => d.status === 'failed').length;
  const skipped = docs.filter((d) => d.status === 'skipped').length;
  const count = docs.length - skipped;
  const n = count === 1 ? '1 document' : `${count} documents`;
  return [n, failed ? `${failed} failed` : '', skipped ? `${skipped} skipped` : ''].filter(Boolean).join(' · ');
}

/** The documents of the panel's list, and apart from them the files Quire does not read. */
export function splitSkipped(docs: readonly DocumentInfo[]): { listed: DocumentInfo[]; skipped: DocumentInfo[] } {
  return { listed: docs.filter((d) => d.status !== 'skipped'), skipped: docs.filter((d) => d.status === 'skipped') };
}

/** Where a citation points: the file, a PDF's page (from its heading "Page N"), the lines. */
export interface SourceTarget {
  path: string;
  name: string;
  page: number;
  start: number;
  end: number;
}

export function citationTarget(c: Citation): SourceTarget {
  let page = 0;
  const m = /^Page (\d+)$/.exec(c.headings?.[0] ?? '');
  if (m) page = Number(m[1]);
  const start = Math.max(0, c.startLine | 0);
  return { path: c.path, name: c.name, page, start, end: Math.max(start, c.endLine | 0) };
}

/** "lines 12–30", "line 4", or '' when the citation has no lines. */
export function linesLabel(start: number, end: number): string {
  if (start <= 0) return '';
  return end > start ? `lines ${start}–${end}` : `line ${start}`;
}

/** A source line for the viewer: its number, its text, and whether the citation covers it. */
export interface SourceLine {
  n: number;
  text: string;
  marked: boolean;
}

export function sourceLines(text: string, start: number, end: number): SourceLine[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  return lines.map((t, i) => ({ n: i + 1, text: t, marked: start > 0 && i + 1 >= start && i + 1 <= end }));
}
