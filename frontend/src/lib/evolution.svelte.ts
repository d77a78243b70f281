// The Evolution panel's state: every candidate improvement, the one shown
// with the version it would replace (the diff), its evidence and its eval
// report, and the regressions the user has ticked. Everything is read from
// Quire again after each step, so the panel shows what the log says, never
// what the page guessed. The page's confirm comes first for approve,
// activate and roll back; in the window Go asks again natively.
import type { ActivationScope, Candidate, CandidateDetail, EvaluationJob, EvolutionSignal, EvolutionState, ScenarioResult } from './protocol';
import { busyWhile } from './batches.svelte';
import type { EvolutionTransport } from './transport/evolution';

/** One line of a text diff: kept, removed (only in the active version) or added (only in the candidate). */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Lines beyond which a diff is not computed line by line (a fragment is at most 1,000 characters, a skill 8,000). */
export const MAX_DIFF_LINES = 400;

/**
 * The line diff from `before` (the active version, '' when none) to `after`
 * (the candidate): a longest common subsequence, removed lines before the
 * added ones at each change. Texts longer than MAX_DIFF_LINES are shown as
 * all removed, then all added.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before ? before.split('\n') : [];
  const b = after ? after.split('\n') : [];
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) {
    return [...a.map((text) => ({ kind: 'removed' as const, text })), ...b.map((text) => ({ kind: 'added' as const, text }))];
  }
  // lcs[i][j]: the common lines of a[i:] and b[j:].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i++] });
      j++;
    } else if (j >= b.length || (i < a.length && lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push({ kind: 'removed', text: a[i++] });
    } else {
      out.push({ kind: 'added', text: b[j++] });
    }
  }
  return out;
}

/** The text a candidate adds while active: its fragment, its SKILL.md or its workflow's task. */
export function artifactText(c: Candidate | undefined | null): string {
  const a = c?.artifact;
  return a?.prompt?.text ?? a?.skill?.skillMd ?? a?.workflow?.task ?? '';
}

/** The report's scenarios with the regressions first (passed without, fail with), then the rest in order. */
export function reportRows(c: Candidate | undefined | null): ScenarioResult[] {
  const all = c?.evaluation?.scenarios ?? [];
  return [...all.filter(regressed), ...all.filter((s) => !regressed(s))];
}

/** Whether the candidate breaks a scenario that passes without it. */
export function regressed(s: ScenarioResult): boolean {
  return s.without.passed && !s.with.passed;
}

/** A candidate's state in words. */
export function stateLabel(c: Candidate): string {
  switch (c.state) {
    case 'proposed':
      return 'Proposed: not evaluated yet';
    case 'evaluated':
      return 'Evaluated: waiting for your answer';
    case 'approved':
      return 'Approved: not active yet';
    case 'active':
      return c.scope === 'folder' ? `Active for ${c.folder || 'this notes folder'}` : 'Active in every conversation';
    case 'rolled-back':
      return 'Rolled back';
    case 'refused':
      return 'Refused';
  }
  return c.state;
}

/** How far a running evaluation is, in words. */
export function jobLabel(j: EvaluationJob): string {
  if (!j.total) return 'Evaluating: preparing the scenarios…';
  return `Evaluating: ${j.done} of ${j.total} scenarios done${j.scenario ? ` (last: ${j.scenario})` : ''}`;
}

/** "2 runs · 1 denied · 0 undone": what was seen while a version was active. */
export function monitorLabel(c: Candidate): string {
  const parts = [`${c.monitor.runs} ${c.monitor.runs === 1 ? 'run' : 'runs'}`];
  for (const [kind, n] of Object.entries(c.monitor.signals ?? {}).sort()) parts.push(`${n} ${kind}`);
  return parts.join(' · ');
}

/** Where a signal's quote comes from, as a link the page opens: the conversation and the first message it names. */
export function signalLink(s: EvolutionSignal): { session: string; seq: number } {
  return { session: s.session, seq: s.seqs?.[0] ?? s.seq };
}

export class EvolutionStore {
  state = $state<EvolutionState>({ candidates: [], signals: [], learn: false });
  /** The candidate shown, with the active version it would replace. */
  shown = $state<CandidateDetail | null>(null);
  /** The regressions the user ticked as seen and accepted. */
  accepted = $state<string[]>([]);
  scope = $state<ActivationScope>('folder');
  error = $state<string | null>(null);
  notice = $state<string | null>(null);
  busy = $state(false);
  /** The evaluation jobs of this start by candidate, as their last change said. */
  jobs = $state<Record<string, EvaluationJob>>({});
  private stop: (() => void) | null = null;

  constructor(private readonly host: EvolutionTransport) {}

  /** The shown candidate's evaluation while it runs. */
  get running(): EvaluationJob | undefined {
    const j = this.jobs[this.shown?.candidate.id ?? ''];
    return j?.state === 'running' ? j : undefined;
  }

  /** Follows every evaluation job; close() stops following. */
  follow() {
    this.stop ??= this.host.subscribeEvaluations((j) => void this.onJob(j));
  }

  close() {
    this.stop?.();
    this.stop = null;
  }

  /**
   * A job's change: kept; at its end (the stream delivers only changes
   * made while followed) the list and the shown candidate are read again,
   * since the report is in the log, and a job that ended without one says why.
   */
  private async onJob(j: EvaluationJob): Promise<void> {
    this.jobs = { ...this.jobs, [j.candidate]: j };
    if (j.state === 'running') return;
    await this.act(async () => {
      this.state = await this.host.evolution();
      if (this.shown?.candidate.id !== j.candidate) return;
      await this.show(j.candidate);
      if (j.state !== 'done') this.notice = j.error || 'The evaluation stopped; nothing was recorded.';
    });
  }

  /** The regressions of the shown candidate's report, in report order. */
  get regressions(): string[] {
    return reportRows(this.shown?.candidate).filter(regressed).map((s) => s.name);
  }
  /** Approve is offered once evaluated and every regression is ticked. */
  get canApprove(): boolean {
    const c = this.shown?.candidate;
    return !!c && c.state === 'evaluated' && !!c.evaluation && this.regressions.every((r) => this.accepted.includes(r));
  }

  /** Reads the list only, saying nothing on failure (an older Quire without evolution): for the sidebar's mark. */
  async glance(): Promise<void> {
    try {
      this.state = await this.host.evolution();
    } catch {
      /* the panel says why when it is opened */
    }
  }

  async load(): Promise<void> {
    await this.act(async () => {
      this.state = await this.host.evolution();
      const id = this.shown?.candidate.id ?? this.state.candidates?.[0]?.id;
      if (id) await this.show(id);
    });
  }

  async show(id: string): Promise<void> {
    const d = await this.host.candidate(id);
    if (this.shown?.candidate.id !== id) this.accepted = [];
    this.shown = d;
  }

  /** Whether the model may propose improvements after a run. */
  learn(on: boolean): Promise<void> {
    return this.act(async () => {
      this.state = await this.host.setEvolutionLearning(on);
    });
  }

  select(id: string): Promise<void> {
    return this.act(() => this.show(id));
  }

  toggle(name: string, on: boolean) {
    this.accepted = on ? [...new Set([...this.accepted, name])] : this.accepted.filter((n) => n !== name);
  }

  /** Starts the shown candidate's evaluation; its progress comes through follow(). */
  async evaluate(): Promise<void> {
    const id = this.shown?.candidate.id;
    if (!id) return;
    this.follow();
    const { [id]: _old, ...others } = this.jobs;
    this.jobs = others;
    await this.act(async () => {
      const j = await this.host.evaluateCandidate(id);
      // A change the stream delivered first is newer than the start's answer.
      if (!this.jobs[id]) this.jobs = { ...this.jobs, [id]: j };
    });
  }

  /** Stops the shown candidate's evaluation; nothing is recorded. */
  async cancelEvaluation(): Promise<void> {
    const id = this.running?.candidate;
    if (!id) return;
    await this.act(async () => {
      await this.host.cancelEvaluation(id);
    });
  }

  async approve(): Promise<void> {
    if (!this.canApprove) return;
    const accepted = this.regressions.filter((r) => this.accepted.includes(r));
    // The digest of the text shown: the port refuses a yes to another.
    const digest = this.shown?.candidate.digest || undefined;
    await this.step(async (id) => {
      const c = await this.host.approveCandidate(id, { accepted, digest });
      if (c.state !== 'approved') this.notice = 'Nothing was approved: you said No.';
    });
  }

  async activate(): Promise<void> {
    const replaces = this.shown?.active?.id;
    const scope = this.scope;
    const digest = this.shown?.candidate.digest || undefined;
    await this.step(async (id) => {
      const c = await this.host.activateCandidate(id, replaces ? { scope, replaces, digest } : { scope, digest });
      if (c.state !== 'active') this.notice = 'Nothing was activated: you said No.';
    });
  }

  async rollback(): Promise<void> {
    await this.step(async (id) => {
      const c = await this.host.rollbackCandidate(id);
      if (c.state === 'active') this.notice = 'Nothing was rolled back: you said No.';
    });
  }

  async refuse(reason: string): Promise<void> {
    await this.step(async (id) => {
      await this.host.refuseCandidate(id, reason.trim());
    });
  }

  private async step(f: (id: string) => Promise<void>): Promise<void> {
    const id = this.shown?.candidate.id;
    if (!id) return;
    await this.act(async () => {
      await f(id);
      this.state = await this.host.evolution();
      await this.show(id);
    });
  }

  private act(f: () => Promise<void>): Promise<void> {
    return busyWhile(this, f);
  }
}
