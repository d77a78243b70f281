// The documents panel's state and the only code that talks to the
// transport about documents. Components read its fields and call its methods.
//
// Progress arrives pushed (subscribeIndexing); the list of documents is
// fetched: once at start, whenever a pass ends, and at most every
// RELOAD_MS while one runs, so a large pass does not flood the host.
//
// The source viewer: openCitation(target) fetches the document's text (the
// host refuses anything that is not an indexed document) and shows it
// scrolled to the cited lines, highlighted.
import { citationTarget, type SourceTarget } from './documents';
import type { Citation, DocumentSource, DocumentsState, IndexProgress, ModelsState, PullProgress } from './protocol';
import type { Transport } from './transport/transport';

/** Fewest milliseconds between two list reloads while a pass runs. */
export const RELOAD_MS = 1000;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export interface ViewerState {
  target: SourceTarget;
  source: DocumentSource | null;
  error: string | null;
  loading: boolean;
}

export class DocumentsStore {
  state = $state.raw<DocumentsState | null>(null);
  progress = $state.raw<IndexProgress | null>(null);
  /** Why the list could not be loaded, or null. */
  loadError = $state<string | null>(null);
  /** Why the last action (add, retry, remove, cancel, a drop) failed, or null. */
  error = $state<string | null>(null);
  /** The panel is open. */
  open = $state(false);
  /** An add is on its way. */
  adding = $state(false);
  /** Paths with a retry or remove on its way. */
  pending = $state.raw<ReadonlySet<string>>(new Set());
  viewer = $state.raw<ViewerState | null>(null);
  /** The user closed the bar of the finished pass. */
  barDismissed = $state(false);
  /** Ollama's models, for the embedding model's choices (null until loaded or when it failed). */
  models = $state.raw<ModelsState | null>(null);
  /** A choice of embedding model or a pull is on its way. */
  embedBusy = $state(false);

  private unsubscribe: (() => void) | null = null;
  private unsubscribePulls: (() => void) | null = null;
  private lastLoad = 0;
  private viewerSeq = 0;

  constructor(
    private readonly transport: Transport,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get takesFileDrops(): boolean {
    return this.transport.takesFileDrops;
  }

  start(): void {
    this.unsubscribe = this.transport.subscribeIndexing(
      (p) => this.onProgress(p),
      (sentence) => (this.error = sentence),
    );
    void this.load();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unsubscribePulls?.();
    this.unsubscribePulls = null;
  }

  /**
   * Loads Ollama's models for the embedding section, and follows pulls from
   * then on: a finished one reloads them, so a pulled model can be chosen.
   */
  async loadModels(): Promise<void> {
    if (typeof this.transport.models !== 'function') return; // an older host
    this.unsubscribePulls ??= this.transport.subscribePulls((p) => this.onPull(p));
    try {
      this.models = await this.transport.models();
    } catch {
      // Without the list the section still shows the chosen model and its
      // trouble; the models screen says why Ollama cannot be asked.
      this.models = null;
    }
  }

  onPull(p: PullProgress): void {
    const m = this.models;
    if (m) this.models = { ...m, pulls: [...(m.pulls ?? []).filter((x) => x.model !== p.model), p] };
    if (p.state === 'running') return;
    void this.loadModels();
    // The chosen model was missing and is now pulled: use it at once rather
    // than at the next check.
    const e = this.state?.embedding;
    if (p.state === 'done' && e?.status === 'missing' && e.model.replace(/:latest$/, '') === p.model.replace(/:latest$/, '')) {
      void this.chooseEmbedModel(e.model);
    }
  }

  /** Chooses the embedding model ('' for none); the documents are re-embedded in the background. */
  async chooseEmbedModel(model: string): Promise<void> {
    this.embedBusy = true;
    this.error = null;
    try {
      await this.transport.setEmbedModel(model);
      await this.load();
    } catch (e) {
      this.error = message(e);
    } finally {
      this.embedBusy = false;
    }
  }

  /** Pulls a recommended embedding model; progress arrives through the pulls subscription. */
  async pullEmbedModel(name: string): Promise<void> {
    this.error = null;
    try {
      await this.transport.pullModel(name);
    } catch (e) {
      this.error = message(e);
    }
  }

  async load(): Promise<void> {
    this.lastLoad = this.now();
    try {
      const st = await this.transport.documents();
      this.state = st;
      // The pushed progress is newer than the one in a list fetched meanwhile.
      if (!this.progress) this.progress = st.progress;
      this.loadError = null;
    } catch (e) {
      this.loadError = message(e);
    }
  }

  onProgress(p: IndexProgress): void {
    const was = this.progress;
    this.progress = p;
    if (p.running && !was?.running) this.barDismissed = false;
    if (!p.running || this.now() - this.lastLoad >= RELOAD_MS) void this.load();
  }

  /** Queues paths for indexing; resolves with the error sentence, or null. */
  async add(paths: string[]): Promise<string | null> {
    this.adding = true;
    this.error = null;
    try {
      await this.transport.indexPaths(paths);
      return null;
    } catch (e) {
      this.error = message(e);
      return this.error;
    } finally {
      this.adding = false;
    }
  }

  async cancel(): Promise<void> {
    try {
      await this.transport.cancelIndexing();
    } catch (e) {
      this.error = message(e);
    }
  }

  retry(path: string): Promise<void> {
    return this.act(path, () => this.transport.retryDocument(path));
  }

  remove(path: string): Promise<void> {
    return this.act(path, () => this.transport.removeDocument(path));
  }

  private async act(path: string, f: () => Promise<void>): Promise<void> {
    this.pending = new Set([...this.pending, path]);
    this.error = null;
    try {
      await f();
    } catch (e) {
      this.error = message(e);
    } finally {
      const next = new Set(this.pending);
      next.delete(path);
      this.pending = next;
    }
  }

  /** Opens the source viewer at a citation (or any target in an indexed document). */
  async openCitation(c: Citation | SourceTarget): Promise<void> {
    const target = 'snippet' in c ? citationTarget(c) : c;
    const seq = ++this.viewerSeq;
    this.viewer = { target, source: null, error: null, loading: true };
    try {
      const source = await this.transport.documentSource(target.path, target.page);
      if (seq === this.viewerSeq) this.viewer = { target, source, error: null, loading: false };
    } catch (e) {
      if (seq === this.viewerSeq) this.viewer = { target, source: null, error: message(e), loading: false };
    }
  }

  closeViewer(): void {
    this.viewerSeq++;
    this.viewer = null;
  }

  dismissError(): void {
    this.error = null;
  }
}

/** The Svelte context key under which App provides the DocumentsStore to cards and messages. */
export const DOCUMENTS_CONTEXT = Symbol('documents');
