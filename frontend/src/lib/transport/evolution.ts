// The Evolution panel's part of the Transport (transport.ts extends it):
// the candidate improvements (issue 20), their isolated evaluation, the
// user's approval, scoped activation and rollback — the same methods over
// Wails bindings (wails.ts) and HTTP (http.ts). Every method rejects with
// an Error whose message is a sentence for the user.
import type { Activation, Approval, Candidate, CandidateDetail, CandidateDraft, EvaluationJob, EvaluationReport, EvolutionSignal, EvolutionState } from '../protocol';


export interface EvolutionTransport {
  /**
   * True in the desktop window: approve, activate and roll back ask once
   * more in a native dialog, which the page cannot click, and resolve with
   * the candidate unchanged when the user said No there. False in a
   * browser: the page's own confirm is the user's yes.
   */
  readonly confirmsEvolutionInDialog: boolean;
  /** Every candidate, newest first, with the latest signals. */
  evolution(): Promise<EvolutionState>;
  /** Saves whether the model may propose improvements after a run (off by default); resolves with the state. */
  setEvolutionLearning(on: boolean): Promise<EvolutionState>;
  /** One candidate with the version active now, its evidence and the signals since it was active. */
  candidate(id: string): Promise<CandidateDetail>;
  /** Adds a candidate the user wrote; nothing changes until it is evaluated, approved and activated. */
  proposeCandidate(d: CandidateDraft): Promise<Candidate>;
  /**
   * Starts the isolated evaluation (temporary folders, never the notes) and
   * resolves at once with the job running: it takes seconds with the
   * scripted model, minutes with a real one. subscribeEvaluations follows it.
   */
  evaluateCandidate(id: string): Promise<EvaluationJob>;
  /** The candidate's latest evaluation job since Quire started (rejects when none). */
  evaluationJob(id: string): Promise<EvaluationJob>;
  /** Stops the candidate's running evaluation; nothing is recorded. */
  cancelEvaluation(id: string): Promise<EvaluationJob>;
  /** Every change of every evaluation job, in order per candidate (its end always). Returns an unsubscribe function. */
  subscribeEvaluations(onJob: (j: EvaluationJob) => void): () => void;
  /** The user's yes; `a.accepted` names every regression the user ticked. */
  approveCandidate(id: string, a: Approval): Promise<Candidate>;
  refuseCandidate(id: string, reason: string): Promise<Candidate>;
  activateCandidate(id: string, a: Activation): Promise<Candidate>;
  rollbackCandidate(id: string): Promise<Candidate>;
}

/** A report from a host, with the arrays the page relies on (Go writes empty ones as null). */
export function evaluationReport(r: EvaluationReport | null | undefined): EvaluationReport | undefined {
  return r ? { ...r, scenarios: r.scenarios ?? [] } : undefined;
}

/** A job from a host, with its report's arrays filled. */
export function evaluationJob(j: EvaluationJob): EvaluationJob {
  return { ...j, report: evaluationReport(j.report) };
}

/** A candidate from a host, with its arrays filled. */
export function candidate(c: Candidate): Candidate {
  return {
    ...c,
    origin: { runs: c.origin?.runs ?? [], signals: c.origin?.signals ?? [] },
    evaluation: evaluationReport(c.evaluation),
    approval: c.approval ? { accepted: c.approval.accepted ?? [] } : undefined,
    monitor: { runs: c.monitor?.runs ?? 0, signals: c.monitor?.signals ?? {} },
  };
}

function signals(s: EvolutionSignal[] | null | undefined): EvolutionSignal[] {
  return (s ?? []).map((x) => ({ ...x, seqs: x.seqs ?? [] }));
}

/** The state from a host, with its arrays filled. */
export function evolutionState(s: EvolutionState | null | undefined): EvolutionState {
  return { candidates: (s?.candidates ?? []).map(candidate), signals: signals(s?.signals), learn: !!s?.learn };
}

/** A detail from a host, with its arrays filled. */
export function candidateDetail(d: CandidateDetail): CandidateDetail {
  return { candidate: candidate(d.candidate), active: d.active ? candidate(d.active) : undefined, evidence: signals(d.evidence), since: signals(d.since) };
}
