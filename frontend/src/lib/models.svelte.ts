// The models screen's state: the models Ollama has, what each can do, which
// is loaded, the recommended ones, and every pull with its progress. Speed
// and time left are computed here, at the edge, from the host's readings
// (PullProgress.atMs): a resumed pull's first reading already counts the
// bytes left on disk by the pull before, so speed is the change between
// readings, never bytes over the time since the pull started.
import type { ModelInfo, ModelsState, PullProgress, RecommendedModel } from './protocol';
import type { ModelsTransport } from './transport/models';

/** How far back the speed looks (ms): long enough to smooth Ollama's bursts. */
export const RATE_WINDOW_MS = 5000;

/** The readings of one pull, for its speed. */
export class PullMeter {
  private at: number[] = [];
  private bytes: number[] = [];

  /** Takes a reading; a new pull of the name (fewer bytes than before) starts again. */
  add(atMs: number, completed: number) {
    const n = this.bytes.length;
    if (n > 0 && completed < this.bytes[n - 1]) {
      this.at = [];
      this.bytes = [];
    }
    this.at.push(atMs);
    this.bytes.push(completed);
    while (this.at.length > 2 && atMs - this.at[1] >= RATE_WINDOW_MS) {
      this.at.shift();
      this.bytes.shift();
    }
  }

  /** Bytes per second over the window; 0 until two readings apart in time. */
  speed(): number {
    const n = this.at.length;
    if (n < 2 || this.at[n - 1] <= this.at[0]) return 0;
    return ((this.bytes[n - 1] - this.bytes[0]) * 1000) / (this.at[n - 1] - this.at[0]);
  }

  /** Seconds left at the current speed; null when unknown. */
  secondsLeft(completed: number, total: number): number | null {
    const s = this.speed();
    if (s <= 0 || total <= 0) return null;
    return Math.max(0, (total - completed) / s);
  }
}

/** A size as Ollama says it (decimal units): "2.5 GB", "274 MB", "999 B". */
export function sizeLabel(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = Math.max(0, n);
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  if (i === 0) return `${Math.round(v)} B`;
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** "3 s", "2 min 5 s", "1 h 4 min": a time left, rounded to what matters. */
export function durationLabel(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const r = s % 60;
    return r ? `${m} min ${r} s` : `${m} min`;
  }
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** One pull as the panel shows it. */
export interface PullView {
  progress: PullProgress;
  /** Completed over total, 0…1; null before the first layer is announced. */
  fraction: number | null;
  /** Bytes per second; 0 when not known yet. */
  speed: number;
  secondsLeft: number | null;
  /** "1.2 GB of 2.5 GB · 31.0 MB/s · 1 min 12 s left", or the state in words. */
  label: string;
}

/** The line under a pull's bar. */
export function pullLabel(p: PullProgress, speed: number, secondsLeft: number | null): string {
  const bytes = p.total > 0 ? `${sizeLabel(p.completed)} of ${sizeLabel(p.total)}` : '';
  switch (p.state) {
    case 'done':
      return `Installed${p.total > 0 ? ` (${sizeLabel(p.total)})` : ''}`;
    case 'cancelled':
      return bytes ? `Stopped at ${bytes}; resuming keeps what was downloaded` : 'Stopped';
    case 'failed':
      return p.error || 'The pull failed';
  }
  if (!bytes) return p.status === 'pulling manifest' ? 'Asking the registry…' : 'Starting…';
  const parts = [bytes];
  if (speed > 0) parts.push(`${sizeLabel(speed)}/s`);
  if (secondsLeft !== null) parts.push(`${durationLabel(secondsLeft)} left`);
  return parts.join(' · ');
}

/** The capabilities shown as badges, in this order (completion is every chat model's, so not shown). */
export const BADGES = ['tools', 'thinking', 'vision', 'embedding'] as const;

/** A model's badges, in BADGES' order. */
export function badges(m: Pick<ModelInfo, 'capabilities'>): string[] {
  const caps = m.capabilities ?? [];
  return BADGES.filter((b) => caps.includes(b));
}

export class ModelsStore {
  installed = $state<ModelInfo[]>([]);
  recommended = $state<RecommendedModel[]>([]);
  /** Every pull since start, by the name it was asked under (the host's spelling of it). */
  pulls = $state<PullView[]>([]);
  /** Why the installed list could not be read (Ollama down), or an action's failure. */
  error = $state<string | null>(null);
  loading = $state(false);
  /** The model whose delete is going, to disable its button. */
  busy = $state<string | null>(null);

  private meters = new Map<string, PullMeter>();
  private off: (() => void) | null = null;

  constructor(private readonly host: ModelsTransport) {}

  /** Loads the list and follows pulls; returns the function that stops following. */
  start(): () => void {
    this.off ??= this.host.subscribePulls((p) => this.take(p));
    void this.load();
    return () => {
      this.off?.();
      this.off = null;
    };
  }

  async load() {
    this.loading = true;
    try {
      this.show(await this.host.models());
    } catch (e) {
      this.error = String((e as Error)?.message ?? e);
    } finally {
      this.loading = false;
    }
  }

  private show(st: ModelsState) {
    this.installed = st.installed ?? [];
    this.recommended = st.recommended ?? [];
    this.error = st.error || null;
    for (const p of st.pulls ?? []) this.take(p, false);
  }

  /** Takes one reading of a pull; a pull that ended installed refreshes the list. */
  take(p: PullProgress, live = true) {
    let meter = this.meters.get(p.model);
    const known = this.pulls.find((v) => v.progress.model === p.model);
    // A list read before a live reading carries an older state of the same pull.
    if (known && known.progress.startedMs === p.startedMs && p.atMs < known.progress.atMs) return;
    if (!meter || (known && known.progress.startedMs !== p.startedMs)) {
      meter = new PullMeter();
      this.meters.set(p.model, meter);
    }
    // Before the first layer is counted (total 0: "starting", "pulling
    // manifest") there is nothing to measure from: a resumed pull's first
    // counted reading already holds the bytes on disk.
    if (p.state === 'running' && p.total > 0) meter.add(p.atMs, p.completed);
    const speed = p.state === 'running' ? meter.speed() : 0;
    const left = p.state === 'running' ? meter.secondsLeft(p.completed, p.total) : null;
    const view: PullView = {
      progress: p,
      fraction: p.total > 0 ? Math.min(1, p.completed / p.total) : null,
      speed,
      secondsLeft: left,
      label: pullLabel(p, speed, left),
    };
    this.pulls = known ? this.pulls.map((v) => (v.progress.model === p.model ? view : v)) : [...this.pulls, view];
    if (live && p.state === 'done') void this.load();
  }

  /** The pull of a model, if one was asked for since start. */
  pullOf(name: string): PullView | undefined {
    return this.pulls.find((v) => v.progress.model === name);
  }

  /** Starts (or resumes) a pull; false with the host's sentence when it could not start. */
  async pull(name: string): Promise<boolean> {
    try {
      await this.host.pullModel(name);
      this.error = null;
      return true;
    } catch (e) {
      this.error = String((e as Error)?.message ?? e);
      return false;
    }
  }

  async cancel(name: string) {
    try {
      await this.host.cancelPull(name);
    } catch (e) {
      this.error = String((e as Error)?.message ?? e);
    }
  }

  /** Deletes a model (the panel asked the user first) and shows the list again. */
  async remove(name: string) {
    this.busy = name;
    try {
      await this.host.deleteModel(name);
      this.pulls = this.pulls.filter((v) => v.progress.model !== name);
      await this.load();
    } catch (e) {
      this.error = String((e as Error)?.message ?? e);
    } finally {
      this.busy = null;
    }
  }
}
