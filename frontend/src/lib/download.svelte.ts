// The first run's one-click download: the recommended chat model (the
// models API's list, qwen3:4b first), pulled through the host with its
// progress, for a new user with no model that can use tools. Go checks
// again on its own when a pull ends (the health watcher), so the first
// screen turns into the chat by itself; `onDone` lets the page ask too.
import type { PullProgress, RecommendedModel } from './protocol';
import { PullMeter } from './models.svelte';
import { modelsState, type ModelsTransport } from './transport/models';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A download size as the Ollama library says it: decimal units, one decimal ("2.5 GB"). */
export function downloadSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${bytes} bytes` : `${v.toFixed(1)} ${units[i]}`;
}

/** The share of a pull done, 0..1 (0 until Ollama announced a layer). */
export function pulled(p: PullProgress | null): number {
  if (!p || p.total <= 0) return 0;
  return Math.min(1, Math.max(0, p.completed / p.total));
}

export class ModelDownload {
  /** The model offered (the first recommended chat model), null until known. */
  model = $state.raw<RecommendedModel | null>(null);
  /** Its pull's latest state, null before one started. */
  progress = $state.raw<PullProgress | null>(null);
  /** Why the list or the pull could not start, or null. */
  error = $state<string | null>(null);
  /** The pull is being asked for (before its first progress). */
  starting = $state(false);
  /** Bytes per second over the last readings; 0 until known (issue 31: no speed was shown). */
  speed = $state(0);
  /** Seconds left at that speed; null until known. */
  secondsLeft = $state<number | null>(null);
  /**
   * The model whose download ended well, until the user closes the note
   * saying so: the first screen and the banner that held the bar are gone
   * by then, and a download that just vanished left the user guessing.
   */
  finished = $state<string | null>(null);
  private meter = new PullMeter();

  readonly running = $derived(this.starting || this.progress?.state === 'running');
  readonly share = $derived(pulled(this.progress));
  /** The sentence a failed pull ended with, or the error of the last try. */
  readonly failure = $derived(this.progress?.state === 'failed' ? this.progress.error || 'The download failed.' : this.error);

  private off: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly t: ModelsTransport,
    private readonly onDone: () => void = () => {},
  ) {}

  /**
   * Loads the model to offer (and a pull of it already running, after a
   * reload); returns the stop function. Pulls are followed only while one
   * of this model runs: a browser gives a page six connections to its
   * host, and every stream held open takes one.
   */
  start(): () => void {
    this.stopped = false;
    void this.t.models().then(
      (r) => {
        const st = modelsState(r);
        this.model = (st.recommended ?? []).find((m) => m.role === 'chat') ?? null;
        const mine = (st.pulls ?? []).find((p) => p.model === this.model?.name);
        if (mine && !this.progress) this.progress = mine;
        if (mine?.state === 'running') this.follow();
      },
      (e) => (this.error = message(e)),
    );
    return () => this.stop();
  }

  stop(): void {
    this.stopped = true;
    this.unfollow();
  }

  private follow(): void {
    if (!this.off && !this.stopped) this.off = this.t.subscribePulls((p) => this.onProgress(p));
  }

  private unfollow(): void {
    this.off?.();
    this.off = null;
  }

  /** Starts (or, after a cancel, resumes) the download. */
  async download(): Promise<void> {
    const m = this.model;
    if (!m || this.running) return;
    this.starting = true;
    this.error = null;
    this.meter = new PullMeter(); // a resumed pull's bytes on disk are not speed
    this.speed = 0;
    this.secondsLeft = null;
    this.follow(); // before the pull starts, so none of its progress is missed
    try {
      await this.t.pullModel(m.name);
    } catch (e) {
      this.error = message(e);
      this.unfollow();
    } finally {
      this.starting = false;
    }
  }

  /** Stops the download; what was downloaded stays, and Download resumes it. */
  async cancel(): Promise<void> {
    const m = this.model;
    if (!m) return;
    try {
      await this.t.cancelPull(m.name);
    } catch (e) {
      this.error = message(e);
    }
  }

  private onProgress(p: PullProgress): void {
    if (!this.model || p.model !== this.model.name) return;
    this.progress = p;
    if (p.state === 'running') {
      if (p.total > 0) {
        this.meter.add(p.atMs, p.completed);
        this.speed = this.meter.speed();
        this.secondsLeft = this.meter.secondsLeft(p.completed, p.total);
      }
      return;
    }
    this.unfollow(); // done, cancelled or failed: nothing more comes
    this.speed = 0;
    this.secondsLeft = null;
    if (p.state === 'done') {
      this.finished = p.model;
      this.onDone();
    }
  }

  /** The user closed the note that the download finished. */
  dismissFinished(): void {
    this.finished = null;
  }
}
