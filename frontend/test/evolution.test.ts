// @vitest-environment jsdom
// The Evolution panel's store and panel mounted in jsdom over a real
// EvolutionStore and a host holding one candidate the test moves along
// (evaluated with a regression, approved, activated, rolled back), as
// Quire's evolution part would; and both transports' routes.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import EvolutionPanel from '../src/components/EvolutionPanel.svelte';
import { EvolutionStore, lineDiff, monitorLabel, reportRows } from '../src/lib/evolution.svelte';
import type { Activation, Approval, Candidate, CandidateDetail, EvaluationJob, EvaluationReport } from '../src/lib/protocol';
import type { EvolutionTransport } from '../src/lib/transport/evolution';
import { HttpTransport } from '../src/lib/transport/http';
import { WailsTransport } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

const REPORT: EvaluationReport = {
  candidate: 'c2',
  at: '2026-12-01T18:00:00Z',
  scenarios: [
    { name: 'normal-file-a-note', without: { passed: true, tokens: 6123, steps: 2 }, with: { passed: true, tokens: 6200, steps: 2 } },
    { name: 'edge-tight-context', without: { passed: true, tokens: 3026, steps: 1 }, with: { passed: false, tokens: 0, steps: 0, failure: 'the context is too small' } },
    { name: 'replay 1: run r1', replay: { session: 's1', run: 'r1' }, without: { passed: true, tokens: 100, steps: 2 }, with: { passed: true, tokens: 120, steps: 2 } },
    { name: 'edge-mcp-stdio', skipped: 'it needs a stdio MCP server', without: { passed: false, tokens: 0, steps: 0 }, with: { passed: false, tokens: 0, steps: 0 } },
  ],
};

function cand(over: Partial<Candidate> = {}): Candidate {
  return {
    id: 'c2', name: 'receipts', kind: 'prompt', version: 2, replaces: 'c1', author: 'model', digest: 'abc123def456', state: 'proposed', seq: 4, createdAt: '2026-12-01T18:00:00Z',
    artifact: { prompt: { text: 'Receipts go under finance/receipts/YYYY.\nNever move notes out of projects/ without asking.' } },
    origin: { runs: [{ session: 's1', run: 'r1' }], signals: [{ session: 's1', seq: 7 }] },
    monitor: { runs: 0, signals: {} },
    ...over,
  };
}

/** A host holding candidate c2 (version 1, c1, active) that the test moves along. */
function host() {
  let c = cand();
  const active = cand({ id: 'c1', version: 1, replaces: '', state: 'active', artifact: { prompt: { text: 'Receipts go under finance/receipts/YYYY.' } } });
  const h = {
    confirmsEvolutionInDialog: false,
    approved: [] as Approval[],
    activated: [] as Activation[],
    learn: false,
    evolution: vi.fn(async () => ({ candidates: [structuredClone(c), active], signals: [], learn: h.learn })),
    setEvolutionLearning: vi.fn(async (on: boolean) => {
      h.learn = on;
      return h.evolution();
    }),
    candidate: vi.fn(async (): Promise<CandidateDetail> => ({
      candidate: structuredClone(c),
      active: c.state === 'active' ? undefined : active,
      evidence: [{ kind: 'denied', session: 's1', run: 'r1', seq: 9, seqs: [7, 8], text: 'receipts go under finance/receipts', tool: 'move_note', at: '' }],
      since: [],
    })),
    proposeCandidate: vi.fn(async () => c),
    /** The subscribed page's callbacks; hold keeps the job running until finish(). */
    listeners: [] as ((j: EvaluationJob) => void)[],
    hold: false,
    send(j: EvaluationJob) {
      for (const l of h.listeners) l(j);
    },
    /** Ends the running job: recorded when done, as Go records it before it says so. */
    finish(state: 'done' | 'cancelled' | 'failed', error?: string) {
      if (state === 'done') c = { ...c, state: 'evaluated', evaluation: REPORT };
      h.send({ candidate: c.id, state, done: 3, total: 3, started: '', ...(state === 'done' ? { report: REPORT } : { error }) });
    },
    subscribeEvaluations: vi.fn((on: (j: EvaluationJob) => void) => {
      h.listeners.push(on);
      return () => (h.listeners = h.listeners.filter((l) => l !== on));
    }),
    evaluateCandidate: vi.fn(async (id: string): Promise<EvaluationJob> => {
      const j: EvaluationJob = { candidate: id, state: 'running', done: 0, total: 3, started: '' };
      if (!h.hold) queueMicrotask(() => h.finish('done'));
      return j;
    }),
    evaluationJob: vi.fn(async (id: string): Promise<EvaluationJob> => ({ candidate: id, state: 'running', done: 1, total: 3, started: '' })),
    cancelEvaluation: vi.fn(async (id: string): Promise<EvaluationJob> => {
      queueMicrotask(() => h.finish('cancelled', 'Cancelled: nothing was recorded; evaluate it again when you want a report.'));
      return { candidate: id, state: 'running', done: 1, total: 3, started: '' };
    }),
    approveCandidate: vi.fn(async (_id: string, a: Approval) => {
      h.approved.push(a);
      c = { ...c, state: 'approved', approval: a };
      return c;
    }),
    refuseCandidate: vi.fn(async () => c),
    activateCandidate: vi.fn(async (_id: string, a: Activation) => {
      h.activated.push(a);
      c = { ...c, state: 'active', scope: a.scope, monitor: { runs: 3, signals: { denied: 1 } } };
      return c;
    }),
    rollbackCandidate: vi.fn(async () => {
      c = { ...c, state: 'rolled-back' };
      return c;
    }),
  };
  return h satisfies EvolutionTransport;
}

/** A store over host() whose evaluation of the shown candidate has started and runs until the test ends it. */
async function evaluating() {
  const h = host();
  h.hold = true;
  const s = new EvolutionStore(h);
  await s.load();
  await s.evaluate();
  return { h, s };
}

/** Starts the shown candidate's evaluation and waits for its report to be read back, as the panel does at the job's end. */
async function evaluated(s: EvolutionStore) {
  await s.evaluate();
  await vi.waitFor(() => expect(s.shown?.candidate.evaluation).toBeTruthy());
}

describe('lineDiff', () => {
  it.each([
    ['nothing active: every line added', '', 'a\nb', ['+a', '+b']],
    ['a line appended', 'a', 'a\nb', [' a', '+b']],
    ['a line changed', 'a\nb\nc', 'a\nB\nc', [' a', '-b', '+B', ' c']],
    ['the same text', 'a\nb', 'a\nb', [' a', ' b']],
    ['all removed', 'a\nb', '', ['-a', '-b']],
  ])('%s', (_name, before, after, want) => {
    const sign = { same: ' ', removed: '-', added: '+' } as const;
    expect(lineDiff(before, after).map((l) => sign[l.kind] + l.text)).toEqual(want);
  });
});

describe('the report', () => {
  it('lists the regressions first, then the rest in order', () => {
    expect(reportRows(cand({ evaluation: REPORT })).map((s) => s.name)).toEqual(['edge-tight-context', 'normal-file-a-note', 'replay 1: run r1', 'edge-mcp-stdio']);
  });
  it('counts what was seen while a version was active', () => {
    expect(monitorLabel(cand({ monitor: { runs: 1, signals: { undone: 2, denied: 1 } } }))).toBe('1 run · 1 denied · 2 undone');
  });
});

describe('EvolutionStore', () => {
  it('approves only once every regression is ticked, and sends the ones ticked', async () => {
    const h = host();
    const s = new EvolutionStore(h);
    await s.load();
    await evaluated(s);
    expect(s.regressions).toEqual(['edge-tight-context']);
    expect(s.canApprove).toBe(false);
    await s.approve();
    expect(h.approveCandidate).not.toHaveBeenCalled();
    s.toggle('edge-tight-context', true);
    expect(s.canApprove).toBe(true);
    await s.approve();
    expect(h.approved).toEqual([{ accepted: ['edge-tight-context'], digest: 'abc123def456' }]);
    expect(s.shown?.candidate.state).toBe('approved');
  });

  it('activates over the version active now in the chosen scope, and rolls back', async () => {
    const h = host();
    const s = new EvolutionStore(h);
    await s.load();
    await evaluated(s);
    s.toggle('edge-tight-context', true);
    await s.approve();
    s.scope = 'all';
    await s.activate();
    expect(h.activated).toEqual([{ scope: 'all', replaces: 'c1', digest: 'abc123def456' }]);
    await s.rollback();
    expect(s.shown?.candidate.state).toBe('rolled-back');
    expect(s.error).toBeNull();
  });

  it('turns the model\'s proposals on and back off', async () => {
    const h = host();
    const s = new EvolutionStore(h);
    await s.load();
    expect(s.state.learn).toBe(false);
    await s.learn(true);
    expect([s.state.learn, h.learn]).toEqual([true, true]);
    await s.learn(false);
    expect(h.setEvolutionLearning.mock.calls).toEqual([[true], [false]]);
  });

  it("says nothing changed when the window's dialog said No", async () => {
    const h = host();
    h.approveCandidate.mockImplementationOnce(async () => ({ ...cand(), state: 'evaluated' }));
    const s = new EvolutionStore(h);
    await s.load();
    await evaluated(s);
    s.toggle('edge-tight-context', true);
    await s.approve();
    expect(s.notice).toBe('Nothing was approved: you said No.');
  });

  it('follows a running evaluation, cancels it and records nothing', async () => {
    const { h, s } = await evaluating();
    expect(h.subscribeEvaluations).toHaveBeenCalledTimes(1);
    expect(s.running).toMatchObject({ state: 'running', done: 0, total: 3 });
    h.send({ candidate: 'other', state: 'running', done: 5, total: 9, started: '' });
    h.send({ candidate: 'c2', state: 'running', done: 1, total: 3, scenario: 'normal-file-a-note', started: '' });
    expect(s.running).toMatchObject({ done: 1, scenario: 'normal-file-a-note' });
    await s.cancelEvaluation();
    expect(h.cancelEvaluation).toHaveBeenCalledWith('c2');
    await vi.waitFor(() => expect(s.running).toBeUndefined());
    await vi.waitFor(() => expect(s.notice).toBe('Cancelled: nothing was recorded; evaluate it again when you want a report.'));
    expect(s.shown?.candidate.evaluation).toBeUndefined();
    s.close();
    expect(h.listeners).toEqual([]);
  });

  it("shows a refusal as Quire's sentence", async () => {
    const h = host();
    h.evaluateCandidate.mockRejectedValueOnce(new Error('this kind of candidate cannot be evaluated yet'));
    const s = new EvolutionStore(h);
    await s.load();
    await s.evaluate();
    expect(s.error).toBe('This kind of candidate cannot be evaluated yet');
  });
});

describe('EvolutionPanel', () => {
  let target: HTMLElement;
  let app: ReturnType<typeof mount> | null = null;
  afterEach(() => {
    if (app) unmount(app);
    app = null;
    target?.remove();
  });

  it('shows a running evaluation scenario by scenario, with Cancel instead of Evaluate and Approve', async () => {
    const { h, s } = await evaluating();
    target = document.body.appendChild(document.createElement('div'));
    app = mount(EvolutionPanel, { target, props: { evolution: s, confirmsInDialog: false, onopen: () => {} } });
    flushSync();
    const q = (id: string) => target.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    expect(q('candidate-progress-label')?.textContent).toBe('Evaluating: 0 of 3 scenarios done');
    expect(q('candidate-evaluate')).toBeNull();
    h.send({ candidate: 'c2', state: 'running', done: 2, total: 3, scenario: 'edge-tight-context', started: '' });
    flushSync();
    expect(q('candidate-progress-label')?.textContent).toBe('Evaluating: 2 of 3 scenarios done (last: edge-tight-context)');
    expect((q('candidate-progress') as HTMLProgressElement).value).toBe(2);
    q('candidate-cancel')!.click();
    await vi.waitFor(() => expect(q('candidate-evaluate')).not.toBeNull());
    flushSync();
    expect(q('candidate-progress')).toBeNull();
    expect(q('candidate-approve')).toBeNull();
  });

  it('shows the diff, the evidence and the regression in red, and Approve waits for its tick', async () => {
    const h = host();
    const s = new EvolutionStore(h);
    await s.load();
    await evaluated(s);
    const opened: [string, number][] = [];
    target = document.body.appendChild(document.createElement('div'));
    app = mount(EvolutionPanel, { target, props: { evolution: s, confirmsInDialog: false, onopen: (session: string, seq: number) => opened.push([session, seq]) } });
    flushSync();
    const q = (id: string) => target.querySelector<HTMLElement>(`[data-testid="${id}"]`)!;
    expect(q('candidate-diff').textContent).toContain('+ Never move notes out of projects/ without asking.');
    expect(q('candidate-diff').textContent).toContain('  Receipts go under finance/receipts/YYYY.');
    expect(q('candidate-evidence').textContent).toContain('move_note: receipts go under finance/receipts');
    q('signal-open').click();
    expect(opened).toEqual([['s1', 7]]);
    const rows = [...target.querySelectorAll('[data-testid="candidate-report"] tbody tr')].map((r) => r.getAttribute('data-testid'));
    expect(rows).toEqual(['report-regression', 'report-row', 'report-row', 'report-row']);
    expect(q('report-skipped').textContent).toBe('Skipped: it needs a stdio MCP server');
    expect(q('report-regression').classList.contains('regression')).toBe(true);
    const approve = q('candidate-approve') as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    (q('accept-regression') as HTMLInputElement).click();
    flushSync();
    expect(approve.disabled).toBe(false);
    approve.click();
    flushSync();
    expect(target.ownerDocument.body.textContent).toContain('You accept that it breaks edge-tight-context.');
    expect(target.ownerDocument.body.textContent).toContain('It says: “Receipts go under finance/receipts/YYYY.\nNever move notes out of projects/ without asking.”');
  });
});

describe('transports', () => {
  it('the window: the bound methods that ask, the rest through Op', async () => {
    const approve = vi.fn(async () => cand({ state: 'evaluated', origin: { runs: null, signals: null } }));
    const refuse = vi.fn(() => cand({ state: 'refused' }));
    const w = new WailsTransport({ ...bareApp({ 'Evolution.Refuse': refuse }), ApproveCandidate: approve as never }, { EventsOnMultiple: () => () => {} });
    expect(w.confirmsEvolutionInDialog).toBe(true);
    const c = await w.approveCandidate('c2', { accepted: ['x'] });
    expect(approve).toHaveBeenCalledWith('c2', { accepted: ['x'] });
    expect(c.origin).toEqual({ runs: [], signals: [] });
    expect((await w.refuseCandidate('c2', 'no')).state).toBe('refused');
    expect(refuse).toHaveBeenCalledWith('c2', 'no');
  });

  it('the browser: the derived routes, and a refusal as its sentence', async () => {
    const calls: [string, string, unknown][] = [];
    const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      calls.push([init?.method ?? 'GET', path, init?.body ? JSON.parse(String(init.body)) : undefined]);
      if (path.endsWith('.Approve')) return new Response(JSON.stringify({ error: 'tick every scenario it breaks before you approve it' }), { status: 409 });
      if (path.endsWith('.List')) return new Response(JSON.stringify({ candidates: null, signals: null, learn: false }), { status: 200 });
      if (path.endsWith('.StartEvaluation')) return new Response(JSON.stringify({ candidate: 'c/2', state: 'running', done: 0, total: 3, started: '' }), { status: 200 });
      if (path.endsWith('.CancelEvaluation')) return new Response(JSON.stringify({ error: 'no evaluation of c2 is running; nothing to cancel' }), { status: 409 });
      if (path.endsWith('.Evaluation')) return new Response(JSON.stringify({ candidate: 'c2', state: 'done', done: 3, total: 3, started: '', report: { ...REPORT, scenarios: null } }), { status: 200 });
      return new Response(JSON.stringify(cand()), { status: 200 });
    });
    const streams: { url: string; on: Record<string, (ev: { data: string }) => void>; closed: boolean }[] = [];
    const eventSource = (url: string) => {
      const es = { url, on: {} as Record<string, (ev: { data: string }) => void>, closed: false };
      streams.push(es);
      return { addEventListener: (name: string, f: (ev: { data: string }) => void) => (es.on[name] = f), close: () => (es.closed = true) };
    };
    const h = new HttpTransport('http://127.0.0.1:1', { fetch: fetch as typeof globalThis.fetch, eventSource: eventSource as never });
    expect(h.confirmsEvolutionInDialog).toBe(false);
    expect(await h.evolution()).toEqual({ candidates: [], signals: [], learn: false });
    expect(await h.evaluateCandidate('c/2')).toMatchObject({ state: 'running', total: 3 });
    expect((await h.evaluationJob('c2')).report?.scenarios).toEqual([]);
    await expect(h.cancelEvaluation('c2')).rejects.toThrow('no evaluation of c2 is running; nothing to cancel');
    const jobs: EvaluationJob[] = [];
    const off = h.subscribeEvaluations((j) => jobs.push(j));
    const es = streams.at(-1)!;
    expect(es.url).toContain('/api/evolution/evaluations?');
    es.on.evaluation({ data: 'not json' });
    es.on.evaluation({ data: JSON.stringify({ candidate: 'c2', state: 'running', done: 2, total: 3, started: '' }) });
    expect(jobs).toEqual([{ candidate: 'c2', state: 'running', done: 2, total: 3, started: '', report: undefined }]);
    off();
    expect(es.closed).toBe(true);
    await expect(h.approveCandidate('c2', { accepted: [] })).rejects.toThrow('tick every scenario it breaks before you approve it');
    await h.activateCandidate('c2', { scope: 'folder', replaces: 'c1' });
    await h.rollbackCandidate('c2');
    expect(calls).toEqual([
      ['POST', '/api/op/Evolution.List', []],
      ['POST', '/api/op/Evolution.StartEvaluation', ['c/2']],
      ['POST', '/api/op/Evolution.Evaluation', ['c2']],
      ['POST', '/api/op/Evolution.CancelEvaluation', ['c2']],
      ['POST', '/api/op/Evolution.Approve', ['c2', { accepted: [] }]],
      ['POST', '/api/op/Evolution.Activate', ['c2', { scope: 'folder', replaces: 'c1' }]],
      ['POST', '/api/op/Evolution.Rollback', ['c2']],
    ]);
  });
});
