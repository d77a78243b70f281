// Pure renderers for the documents panel, the indexing bar and the source
// viewer: state in, display data out (tested in test/documents.test.ts).
import type { Citation, DocumentInfo, DocumentStatus, DocumentsState, IndexProgress, ModelsState, PullProgress } from './protocol';

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
  if (p.reembedding) return reembedView(p, total, done, percent);
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

/** The bar of a switch of embedding model: documents re-embedded, old vectors in use meanwhile. */
function reembedView(p: IndexProgress, total: number, done: number, percent: number | null): ProgressView {
  const model = modelName(p.reembedding ?? '');
  const docs = (n: number) => (n === 1 ? '1 document' : `${n} documents`);
  if (p.running) {
    const detail = [p.currentFile ? baseName(p.currentFile) : '', 'search uses the old vectors until this is done'].filter(Boolean).join(' · ');
    return { show: true, running: true, percent, label: `Embedding ${done} of ${docs(total)} with ${model}`, detail, tone: 'neutral' };
  }
  switch (p.phase) {
    case 'done':
      return { show: true, running: false, percent: 100, label: `Search now uses ${model}`, detail: `${docs(total)} embedded`, tone: 'ok' };
    case 'cancelled':
      return { show: true, running: false, percent, label: `Embedding with ${model} stopped`, detail: 'Search uses the old vectors; it goes on at the next start', tone: 'warn' };
    case 'failed':
      return { show: true, running: false, percent, label: `Embedding with ${model} stopped on an error`, detail: p.error ?? '', tone: 'danger' };
    default:
      return { show: false, running: false, percent: null, label: '', detail: '', tone: 'neutral' };
  }
}

/** "ollama:nomic-embed-text" → "nomic-embed-text"; the offline embedder's name as it is. */
function modelName(embedder: string): string {
  return embedder.replace(/^ollama:/, '');
}

/** One line saying which embedder makes the vectors. */
export function embedderLabel(st: Pick<DocumentsState, 'embedder' | 'offline' | 'embedding'> | null): string {
  if (!st || !st.embedder) return '';
  if (st.offline) {
    const why = st.embedding?.model ? `${st.embedding.model} is not in use yet` : 'no embedding model chosen';
    return `Meaning search: the built-in offline embedder (${why})`;
  }
  return `Meaning search: ${st.embedder.replace(/^ollama:/, 'Ollama model ')}`;
}

/** "274 MB", "1.2 GB": a download size as people read it. */
export function sizeLabel(bytes: number): string {
  if (!(bytes > 0)) return '';
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1).replace(/\.0$/, '')} GB`;
  return `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

/** What the documents panel's embedding section shows. */
export interface EmbeddingView {
  /** The chosen model's trouble and what to do, or ''. */
  problem: string;
  /** The switch under way, or ''. */
  switching: string;
  /** The choice shown selected: a model name, or '' for none. */
  chosen: string;
  /** None, then the installed models that can embed (the chosen one too, even if missing). */
  choices: { value: string; label: string }[];
  /** Recommended embedding models that are not installed, to pull. */
  pullable: { name: string; label: string; pull: PullProgress | null }[];
}

export function embeddingView(st: DocumentsState | null, models: ModelsState | null): EmbeddingView {
  const e = st?.embedding;
  const chosen = e?.model ?? '';
  const choices = [{ value: '', label: 'None: search by keywords only' }];
  const installed = (models?.installed ?? []).filter((m) => (m.capabilities ?? []).includes('embedding'));
  // Ollama lists "nomic-embed-text:latest" for the "nomic-embed-text" the
  // settings hold: one model, chosen by its short name so it keeps its vectors.
  const short = (name: string) => name.replace(/:latest$/, '');
  const same = (listed: string, name: string) => short(listed) === short(name);
  for (const m of installed) {
    const size = sizeLabel(m.size);
    choices.push({ value: chosen && same(m.name, chosen) ? chosen : short(m.name), label: size ? `${m.name} (${size})` : m.name });
  }
  const isInstalled = (name: string) => installed.some((m) => same(m.name, name));
  if (chosen && !choices.some((c) => c.value === chosen)) {
    // A model Ollama does not list (yet, or any more) stays shown as chosen.
    choices.push({ value: chosen, label: `${chosen} (not installed)` });
  }
  const pulls = models?.pulls ?? [];
  const pullable = (models?.recommended ?? [])
    .filter((r) => r.role === 'embedding' && !r.installed && !isInstalled(r.name))
    .map((r) => {
      const size = sizeLabel(r.downloadSize);
      return { name: r.name, label: size ? `Pull ${r.name} (${size} download)` : `Pull ${r.name}`, pull: pulls.find((p) => p.model === r.name) ?? null };
    });
  let switching = '';
  if (e?.target) switching = `Embedding the documents with ${modelName(e.target)}; search uses ${modelName(e.inUse)} until that is done.`;
  return { problem: e?.problem ?? '', switching, chosen, choices, pullable };
}

/** "Downloading 40% (110 of 274 MB)", "Downloaded", or the failure's sentence. */
export function pullLabel(p: PullProgress | null): string {
  if (!p) return '';
  switch (p.state) {
    case 'running': {
      if (!(p.total > 0)) return 'Starting the download…';
      const pct = Math.floor((Math.min(p.completed, p.total) / p.total) * 100);
      return `Downloading ${pct}% (${sizeLabel(p.completed) || '0 MB'} of ${sizeLabel(p.total)})`;
    }
    case 'done':
      return 'Downloaded; choose it above to use it';
    case 'cancelled':
      return 'Download stopped; pull again to resume';
    default:
      return p.error ?? 'The download failed';
  }
}

/** Counts for the panel's header: "12 documents · 1 failed · 3 skipped" (skipped files are not documents). */
export function countsLabel(docs: readonly DocumentInfo[]): string {
  const failed = docs.filter((d) => d.status === 'failed').length;
  const skipped = docs.filter((d) => d.status === 'skipped').length;
  const count = docs.length - skipped;
  const n = count === 1 ? '1 document' : `${count} documents`;
  return [n, failed ? `${failed} failed` : '', skipped ? `${skipped} skipped` : ''].filter(Boolean).join(' · ');
}

/**
 * The documents of the panel's list, the failed ones first (in a list of
 * hundreds they were buried in the alphabet, issue 31), and apart from
 * them the files Quire does not read.
 */
export function splitSkipped(docs: readonly DocumentInfo[]): { listed: DocumentInfo[]; skipped: DocumentInfo[] } {
  const listed = docs.filter((d) => d.status !== 'skipped');
  return {
    listed: [...listed.filter((d) => d.status === 'failed'), ...listed.filter((d) => d.status !== 'failed')],
    skipped: docs.filter((d) => d.status === 'skipped'),
  };
}

/** What a document ready with no passage is said to be: "Ready · 0 passages" read as fine. */
export const NO_TEXT = 'Quire found no text in it to search: a scanned PDF needs text recognition (OCR) first.';

/** A document's chip: its status, or "No text" for one done with nothing to search. */
export function docStatusView(d: Pick<DocumentInfo, 'status' | 'chunks'>): { label: string; tone: BarTone } {
  if (d.status === 'done' && d.chunks === 0) return { label: 'No text', tone: 'warn' };
  return statusView(d.status);
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
