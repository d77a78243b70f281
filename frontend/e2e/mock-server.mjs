// A small in-memory stand-in for `quire serve` (docs/PROTOCOL.md, HTTP + SSE),
// used by the e2e runner when QUIRE_E2E_URL is not set. It serves
// frontend/dist and answers every /api route; a reply is "You said: <text>",
// streamed as input.received, run.started, user.message, several
// assistant.delta, assistant.message and run.finished.
//
// Like kernel/core, a session has a queue of inputs and at most one run: a
// message sent while a run is going is logged at once as input.received and
// taken up later — a follow_up when the run has finished (it opens the next
// run), a steer at the run's next step (its user.message comes first, then
// that step's reply). Internal events (step.started) are not sent, as Go
// filters them out for the page.
//
// Like Go, it insists on the handshake (426 without a compatible
// Quire-Protocol header, or ?protocol= on the stream; GET /api/handshake) and
// honours Idempotency-Key (a repeat is answered with the first result and has
// no second effect; the same key for another command is 422), and it takes
// POST /api/commands envelopes.
//
// Test-only controls (not part of the protocol):
//   POST /__mock/reset {doctorOk?: boolean}   forget everything
//   GET  /__mock/probe                         the last view snapshot posted to /api/probe
// Magic messages: "/fail ..." ends the run with an error; "/slow ..." streams
// slowly so a test can press Stop; "/tool ..." makes a step that calls two
// tools (read_file, search_notes: tool.started, then tool.result after about
// 300 ms, the second call's first), then a text step ("/tool slow ..." takes
// about 2 s per tool, time enough to send something meanwhile); "/ask ..."
// makes a step that calls write_file, asks with permission.requested and waits
// for POST /api/sessions/{id}/answer: then permission.answered, and either
// tool.started + tool.result or tool.refused (denied, with the user's reason),
// then a final text step. "/plan ..." makes a step that calls update_todos
// (PLAN_ITEMS: 3 items, 1 done; its result's data is the plan), then a text
// step ("/plan slow ..." streams that text slowly, so the plan panel can be
// seen while the request goes). "/move ..." makes a step that calls
// move_note, whose result's data is a Change (MOVE_FROM → MOVE_TO), then a
// text step. "Undo the change <id> (...)." (what a change card's Undo sends)
// makes a step that calls undo {changeId}, which asks first like Go's; allowed,
// its result is the Change that reverts <id> (with `undoes`). "/unsure ..."
// makes a step that calls report_state (UNSURE_REPORT), then a text step.
// "/compact ..." makes a step that calls read_note (a long LONG_NOTE), then
// compacts it as Go's kernel/compact does (history.replace of that step with
// COMPACTION_STUB and its record), then a text step.
//
// "/cite ..." makes a step that calls search_docs (its result's data: CITE_HITS,
// passages of the documents in DOC_FILES), then a text step citing them,
// CITE_REPLY.
//
// Documents (host/httpapi/documents.go): GET /api/documents, POST
// /api/documents {paths} (a path must be absolute and be DOCS_ROOT or a file
// of DOC_FILES, else 400 with Go's sentence; indexing then runs on timers,
// one file every DOC_STEP_MS, with progress on GET /api/documents/stream),
// POST /api/documents/cancel, /retry and /remove {path} (404 for a path not
// indexed), GET /api/documents/source?path=&page= (404 unless indexed, 409 for
// a failed one). POST /__mock/reset {docsIndexed: true} starts with DOC_FILES indexed.
//
// Memory: "/remember <text>" makes a step that calls remember {kind:
// "preference", text}; like Go's tool it adds an item citing the user's
// message and the call (pending when approval is on), then a text step.
// GET /api/memory, PATCH/DELETE /api/memory/{id}, POST /api/memory/{id}/review
// and PUT /api/memory/settings answer as Go's host/httpapi/memory.go does,
// with its sentences (MEMORY_EMPTY, memoryUnknown).
//
// Settings: GET /api/settings {notesDir} ("" until set; POST /__mock/reset
// {notesDir} presets it) and PUT /api/settings {notesDir}, which answers 400
// with Go's kind of sentence for a path that does not start with "/".
//
// Run alone: node e2e/mock-server.mjs [port]  (prints the URL)
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VERSION = '1.0';
export const FAIL_SENTENCE = 'Ollama is not running at http://127.0.0.1:11434: start it with `ollama serve`.';
export const DOCTOR_REMEDY = 'start it with `ollama serve`';
/** Go's sentence (kernel/runtime ErrNotAsked) for an answer to a question that is not open. */
export const NOT_ASKED = 'there is no open question about those calls (answered already, or the request ended)';
/** What the mock's read_file returns for "/tool": more lines than a card shows at first. */
export const GARDEN_NOTES = [
  '# Garden',
  '- Water the tomatoes daily',
  '- Sow basil in May',
  '- Prune the roses in March',
  '- Mulch the beds before summer',
  '- Net the strawberries',
  '- Compost: turn it weekly',
  '- Order seeds for next year',
].join('\n');
/** The text "/ask" wants to write. */
export const TODO_TEXT = 'Buy seeds\nWater the tomatoes\nPrune the roses';
/** The plan "/plan" sends with update_todos. */
export const PLAN_ITEMS = [
  { text: 'Read the notes in the inbox', done: true },
  { text: 'Sort them into project folders', done: false },
  { text: 'Link related notes', done: false },
];
/** What "/move" moves. */
export const MOVE_FROM = 'inbox/a.md';
export const MOVE_TO = 'projects/a.md';
/** What "/compact" reads before it is compacted. */
export const LONG_NOTE = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the build log: compiling module ${i + 1}`).join('\n');
/** The stub "/compact" replaces the read with, as drop-logs writes it. */
export const COMPACTION_STUB =
  'Assistant called read_note {"path":"logs/build.md"}\n[dropped: read_note output, 2000 characters, event 5; the whole output is kept in the log]';
/** Go's sentence (memory.checkText) for an empty memory text. */
export const MEMORY_EMPTY = 'The memory text is empty: write the fact or preference to remember.';
/** Go's sentence for an id that is not remembered. */
export const memoryUnknown = (id) => `No memory item has the id ${JSON.stringify(id)} (it may have been forgotten); list the memory to see the ids.`;
/** What "/unsure" reports with report_state. */
export const UNSURE_REPORT = {
  state: 'I found two notes called plan.md, one in projects and one in archive.',
  plan: 'Edit the one in projects, unless you meant the other.',
  confusion: 'Your message says "my plan", and both could be it.',
};
/** The folder of documents the mock knows, and its files: text, or why it cannot be read. */
export const DOCS_ROOT = '/home/ann/papers';
export const DOC_FILES = {
  [`${DOCS_ROOT}/garden.md`]: {
    format: 'markdown',
    text: ['# Garden', '', 'Tomatoes need sun.', '', '## Water', '', 'Water the basil every morning.', 'Never let the pots dry out.', '', '## Soil', '', 'Add compost in spring.'].join('\n'),
  },
  [`${DOCS_ROOT}/soil.txt`]: { format: 'text', text: 'Compost feeds the soil.\nTurn the heap weekly.\n' },
  [`${DOCS_ROOT}/photo.txt`]: { failed: 'binary content: the file looks like image/png, not text' },
};
/** Milliseconds per file while the mock indexes. */
export const DOC_STEP_MS = 250;
/** What search_docs returns for "/cite": passage 1 is lines 7–8 of garden.md. */
export const CITE_HITS = [
  { n: 1, path: `${DOCS_ROOT}/garden.md`, name: 'papers/garden.md', headings: ['Garden', 'Water'], startLine: 7, endLine: 8, snippet: 'Water the basil every morning. Never let the pots dry out.', score: 0.032, lexicalRank: 1, vectorRank: 1 },
  { n: 2, path: `${DOCS_ROOT}/soil.txt`, name: 'papers/soil.txt', headings: [], startLine: 1, endLine: 2, snippet: 'Compost feeds the soil.', score: 0.016, lexicalRank: 2, vectorRank: 0 },
];
export const CITE_REPLY = 'Water the basil every morning [1], and feed the soil with compost [2].';
/** Go's sentences (library/errors.go). */
export const NOT_INDEXED = 'this file is not in the document index; drop it on the window to add it';
export const NO_SUCH_PATH = 'there is no such file or folder; check the path';

/** The sentence PUT /api/settings answers (400) for a path that is not absolute. */
export const notAbsolute = (dir) => `the notes folder ${dir} cannot be used: it is not an absolute path`;


const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

function chunk(text, size) {
  const chars = Array.from(text);
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length ? out : [text];
}

export async function startMock({ distDir, port = 0, deltaMs = 70 } = {}) {
  const dist = resolve(distDir ?? fileURLToPath(new URL('../dist', import.meta.url)));
  let state;
  const reset = (opts = {}) => {
    for (const r of state?.runs?.values() ?? []) stopTimers(r);
    stopDocTimers();
    state = {
      sessions: new Map(),
      logs: new Map(),
      // Per session: the run going (at most one) and the inputs waiting.
      runs: new Map(),
      queues: new Map(),
      keys: new Map(),
      probe: null,
      doctorOk: opts.doctorOk ?? true,
      notesDir: typeof opts.notesDir === 'string' ? opts.notesDir : '',
      docs: new Map(),
      roots: [],
      progress: { running: false, phase: 'idle', total: 0, done: 0, failed: 0, etaMs: 0, queued: 0 },
      docTimers: new Set(),
      memory: [],
      memoryApproval: false,
      memoryLearn: false,
      changes: 0,
      n: 0,
    };
  };
  const stopDocTimers = () => {
    for (const t of state?.docTimers ?? []) clearTimeout(t);
    state?.docTimers.clear();
  };
  const stopTimers = (run) => {
    for (const t of run.timers) clearTimeout(t);
    run.timers.clear();
  };
  reset();
  const clients = new Set();

  const now = () => new Date().toISOString();
  const list = () =>
    [...state.sessions.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.n - a.n)).map(({ n, ...s }) => s);
  const broadcast = (event, data) => {
    const msg = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of clients) res.write(msg);
  };
  const append = (id, type, payload, runId) => {
    const s = state.sessions.get(id);
    const log = state.logs.get(id);
    if (!s || !log) return null;
    const e = { session: id, seq: log.length, type, time: now(), visibility: 'public', payload };
    if (runId) e.runId = runId;
    log.push(e);
    s.lastSeq = e.seq;
    s.updatedAt = e.time;
    broadcast('events', [e]);
    return e;
  };

  const newId = (prefix) => `${prefix}-${randomUUID().slice(0, 8)}`;
  /** Runs fn after ms unless the run is stopped first. */
  const later = (run, ms, fn) => {
    const t = setTimeout(() => {
      run.timers.delete(t);
      fn();
    }, ms);
    run.timers.add(t);
  };
  const setRunStatus = (id, status) => {
    const s = state.sessions.get(id);
    if (!s) return;
    s.status = 'attached';
    s.runStatus = status;
    s.running = status !== 'idle';
    broadcast('sessions', list());
  };
  const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

  /** What a run does, from the text of the input that opened it. */
  const scriptOf = (text) => {
    for (const k of ['fail', 'slow', 'tool', 'ask', 'plan', 'move', 'unsure', 'compact', 'remember', 'cite']) if (text.startsWith('/' + k)) return k;
    if (UNDO_ASK.test(text)) return 'undo';
    return 'plain';
  };
  const UNDO_ASK = /^Undo the change (\S+?)[\s.]/;
  const newChangeId = () => `chg_${(++state.changes).toString(16).padStart(16, '0')}`;
  /** The Change a tool result of session `id` carries as its data, by change id. */
  const findChange = (id, changeId) =>
    (state.logs.get(id) ?? []).map((e) => e.type === 'tool.result' && e.payload.data).find((d) => d && d.id === changeId) ?? null;

  /** Records an input (kernel/runtime submit): opens a run when the session is idle, else it waits. */
  function submit(id, text, intent) {
    const inputId = newId('in');
    const runId = intent === 'inject' ? '' : newId('run');
    const input = { inputId, intent, text, runId };
    state.queues.get(id).push(input);
    const current = state.runs.get(id);
    append(id, 'input.received', runId ? { inputId, intent, text, runId } : { inputId, intent, text });
    const result = { runId: current && intent !== 'follow_up' ? current.runId : runId };
    if (!current && intent !== 'inject') openNextRun(id);
    return result;
  }

  /** Opens a run for the first waiting follow-up or steer, if any (kernel/core openNextRun). */
  function openNextRun(id) {
    const queue = state.queues.get(id) ?? [];
    const i = queue.findIndex((x) => x.intent !== 'inject');
    if (i < 0) return;
    const opener = queue[i];
    const run = { runId: opener.runId, opener, kind: scriptOf(opener.text), step: 0, timers: new Set(), phase: 'streaming', inFlight: [], asking: null, allowed: null };
    state.runs.set(id, run);
    append(id, 'run.started', { model: 'mock:latest', inputId: opener.inputId }, run.runId);
    startStep(id, run, i);
  }

  /** Takes up the opener (index `first`, or -1) and every steer/inject, then asks for a reply. */
  function startStep(id, run, first) {
    const queue = state.queues.get(id) ?? [];
    const taken = queue.filter((x, i) => i === first || x.intent === 'steer' || x.intent === 'inject');
    state.queues.set(id, queue.filter((x) => !taken.includes(x)));
    run.step++;
    for (const x of taken) append(id, 'user.message', { text: x.text, inputId: x.inputId, intent: x.intent }, run.runId);
    run.phase = 'streaming';
    setRunStatus(id, 'streaming');
    const steers = taken.filter((x) => x.intent !== 'follow_up');
    if (run.kind === 'fail') return later(run, deltaMs, () => finish(id, run, { reason: 'error', error: FAIL_SENTENCE }));
    if (run.kind === 'tool' && run.step === 1) return toolStep(id, run);
    if (run.kind === 'ask' && run.step === 1) return askStep(id, run);
    if (run.kind === 'plan' && run.step === 1) return planStep(id, run);
    if (run.kind === 'move' && run.step === 1) return moveStep(id, run);
    if (run.kind === 'undo' && run.step === 1) return undoStep(id, run);
    if (run.kind === 'unsure' && run.step === 1) return unsureStep(id, run);
    if (run.kind === 'cite' && run.step === 1) return citeStep(id, run);
    if (run.kind === 'compact' && run.step === 1) return compactStep(id, run);
    if (run.kind === 'compact' && run.step === 2) compactBefore(id, run);
    if (run.kind === 'remember' && run.step === 1) return rememberStep(id, run);
    let reply;
    if (run.kind === 'slow' && run.step === 1) reply = 'Counting slowly: ' + Array.from({ length: 40 }, (_, i) => i + 1).join(', ') + '.';
    else if (run.kind === 'tool') reply = 'Your notes say to water the tomatoes daily.';
    else if (run.kind === 'ask') reply = run.allowed ? 'Done: todo.md has your three items.' : 'All right, I left todo.md alone.';
    else if (run.kind === 'plan') reply = 'I have read your inbox; next I will sort the notes into project folders.';
    else if (run.kind === 'move') reply = `I moved a.md from the inbox into projects.`;
    else if (run.kind === 'unsure') reply = 'Which of the two plan.md notes do you mean?';
    else if (run.kind === 'cite') reply = CITE_REPLY;
    else if (run.kind === 'compact') reply = 'The build log shows 40 modules compiled.';
    else if (run.kind === 'remember') reply = 'I will remember that.';
    else if (run.kind === 'undo') reply = run.allowed ? `Undone: a.md is back in ${MOVE_FROM.split('/')[0]}.` : 'All right, I left it as it is.';
    else reply = `You said: ${steers.at(-1)?.text ?? run.opener.text}`;
    if (steers.length && run.kind !== 'plain') reply = `Noted: ${steers.at(-1).text}. ${reply}`;
    const slow = (run.kind === 'slow' && run.step === 1) || (run.kind === 'plan' && /^\/plan\s+slow/.test(run.opener.text));
    stream(id, run, reply, { slow }, () => afterStep(id, run));
  }

  /** Streams `text` as deltas, then the whole message with `calls`; then `next`. */
  function stream(id, run, text, { slow = false, calls = [] } = {}, next) {
    const pieces = text ? chunk(text, slow ? 4 : Math.max(1, Math.ceil(text.length / 6))) : [];
    run.said = '';
    let i = 0;
    const tick = () => {
      if (i < pieces.length) {
        run.said += pieces[i];
        append(id, 'assistant.delta', { content: pieces[i++] }, run.runId);
        return later(run, slow ? 250 : deltaMs, tick);
      }
      const msg = {
        step: run.step,
        content: text,
        doneReason: 'stop',
        model: 'mock:latest',
        usage: { promptTokens: 24 + run.opener.text.length, outputTokens: pieces.length + calls.length, durationNs: 1_234_000_000 },
      };
      if (calls.length) msg.toolCalls = calls;
      append(id, 'assistant.message', msg, run.runId);
      run.said = null;
      next();
    };
    later(run, deltaMs, tick);
  }

  /** After a step with no calls: the next step if a steer waits, else the run is done. */
  function afterStep(id, run) {
    if ((state.queues.get(id) ?? []).some((x) => x.intent === 'steer')) return startStep(id, run, -1);
    finish(id, run, { reason: 'completed' });
  }

  /** Runs `calls` (each: {call, ms, content, data?}) and moves on once all have results. */
  function runTools(id, run, calls) {
    run.phase = 'tools';
    run.inFlight = calls.map((c) => c.call);
    for (const { call } of calls) append(id, 'tool.started', { callId: call.id, name: call.name }, run.runId);
    setRunStatus(id, 'executing-tools');
    for (const { call, ms, content, data } of calls) {
      later(run, ms, () => {
        run.inFlight = run.inFlight.filter((c) => c !== call);
        const result = { callId: call.id, name: call.name, status: 'success', content, durationNs: ms * 1e6 };
        if (data !== undefined) result.data = data;
        append(id, 'tool.result', result, run.runId);
        if (run.inFlight.length === 0) startStep(id, run, -1);
      });
    }
  }

  function toolStep(id, run) {
    const slow = /^\/tool\s+slow/.test(run.opener.text);
    const read = { id: newId('call'), name: 'read_file', arguments: JSON.stringify({ path: 'notes/garden.md' }) };
    const search = { id: newId('call'), name: 'search_notes', arguments: JSON.stringify({ query: 'tomatoes', limit: 5 }) };
    stream(id, run, '', { calls: [read, search] }, () =>
      runTools(id, run, [
        // The second call finishes first: the cards stay in call order.
        { call: read, ms: slow ? 2000 : 350, content: GARDEN_NOTES },
        { call: search, ms: slow ? 1800 : 250, content: 'garden.md:2: - Water the tomatoes daily' },
      ]),
    );
  }

  /** update_todos with PLAN_ITEMS: its result's data is the plan (tools/todo). */
  function planStep(id, run) {
    const plan = { items: PLAN_ITEMS };
    const call = { id: newId('call'), name: 'update_todos', arguments: JSON.stringify(plan) };
    const open = PLAN_ITEMS.filter((i) => !i.done).length;
    stream(id, run, '', { calls: [call] }, () =>
      runTools(id, run, [{ call, ms: 120, content: `Plan saved: ${PLAN_ITEMS.length} items, ${open} still open.`, data: plan }]),
    );
  }

  /** move_note MOVE_FROM → MOVE_TO: its result's data is the Change (tools/notes), as Go encodes it. */
  function moveStep(id, run) {
    const call = { id: newId('call'), name: 'move_note', arguments: JSON.stringify({ from: MOVE_FROM, to: MOVE_TO }) };
    const change = { id: newChangeId(), tool: 'move_note', kind: 'move', path: MOVE_TO, from: MOVE_FROM, before: null, after: null, sha256: 'e3b0c44298fc1c14' };
    stream(id, run, '', { calls: [call] }, () =>
      runTools(id, run, [{ call, ms: 200, content: `Moved ${MOVE_FROM} to ${MOVE_TO} (change ${change.id}; undo can revert it)`, data: change }]),
    );
  }

  /** remember {kind: preference, text}: an item citing the user's message and the call (memory/tools.go). */
  function rememberStep(id, run) {
    const text = run.opener.text.replace(/^\/remember\s*/, '');
    const call = { id: newId('call'), name: 'remember', arguments: JSON.stringify({ kind: 'preference', text }) };
    stream(id, run, '', { calls: [call] }, () => {
      const log = state.logs.get(id);
      const user = log.findLast((e) => e.type === 'user.message').seq;
      const said = log.at(-1).seq;
      const now = new Date().toISOString();
      const item = {
        id: newId('m').slice(0, 14), kind: 'preference', text, status: state.memoryApproval ? 'pending' : 'kept', origin: 'tool',
        session: id, seq: said + 1, events: [said + 1], sources: [user, said], createdAt: now, updatedAt: now,
      };
      state.memory.unshift(item);
      const content = item.status === 'pending' ? `Saved as [${item.id}], pending: the user approves new memories in the memory panel before they are kept.` : `Remembered as [${item.id}].`;
      runTools(id, run, [{ call, ms: 60, content, data: item }]);
    });
  }

  /** report_state with UNSURE_REPORT: its result's data is the report (tools/todo). */
  function unsureStep(id, run) {
    const call = { id: newId('call'), name: 'report_state', arguments: JSON.stringify(UNSURE_REPORT) };
    stream(id, run, '', { calls: [call] }, () =>
      runTools(id, run, [{ call, ms: 80, content: 'Reported. The user can see your report; continue if you can, or ask the user.', data: UNSURE_REPORT }]),
    );
  }

  /** search_docs: its result's data is CITE_HITS (tools/searchdocs). */
  function citeStep(id, run) {
    const call = { id: newId('call'), name: 'search_docs', arguments: JSON.stringify({ query: 'watering and soil' }) };
    const content = CITE_HITS.map((h) => `[${h.n}] ${h.name} (lines ${h.startLine}–${h.endLine}): ${h.snippet}`).join('\n');
    stream(id, run, '', { calls: [call] }, () =>
      runTools(id, run, [{ call, ms: 150, content, data: { query: 'watering and soil', embedder: 'built-in offline embedder (mock)', hits: CITE_HITS } }]),
    );
  }

  /** read_note of a long log, to be compacted before the next step. */
  function compactStep(id, run) {
    const call = { id: newId('call'), name: 'read_note', arguments: JSON.stringify({ path: 'logs/build.md' }) };
    stream(id, run, '', { calls: [call] }, () => runTools(id, run, [{ call, ms: 80, content: LONG_NOTE }]));
  }

  /** The replace Go's compaction appends before a step: the run's first reply and its result. */
  function compactBefore(id, run) {
    const mine = (state.logs.get(id) ?? []).filter((e) => e.runId === run.runId);
    const from = mine.find((e) => e.type === 'assistant.message')?.seq ?? 0;
    const to = mine.filter((e) => e.type === 'tool.result').at(-1)?.seq ?? from;
    const figures = { tokens: 3121, window: 4096, fill: 0.76, topSource: 'read_note', topSourceShare: 0.9, duplicateRatio: 0, lowValueShare: 0.9, index: 0.9 };
    append(
      id,
      'history.replace',
      {
        from,
        to,
        summary: COMPACTION_STUB,
        compaction: { strategy: 'drop-logs', trigger: 'size', figures, beforeTokens: 3121, afterTokens: 1204, dropped: ['read_note output, 2000 characters, event 5'] },
      },
      run.runId,
    );
  }

  /** undo {changeId}: asks first (Go's undo is unsafe); allowed, its Change reverts the one asked for. */
  function undoStep(id, run) {
    const changeId = run.opener.text.match(UNDO_ASK)?.[1] ?? '';
    const call = { id: newId('call'), name: 'undo', arguments: JSON.stringify({ changeId }) };
    const c = findChange(id, changeId);
    const data = c
      ? c.kind === 'move'
        ? { id: newChangeId(), tool: 'undo', kind: 'move', path: c.from, from: c.path, before: null, after: null, undoes: c.id }
        : { id: newChangeId(), tool: 'undo', kind: 'write', path: c.path, before: c.after ?? null, after: c.before ?? null, undoes: c.id }
      : undefined;
    run.results = new Map([[call.id, data ? { content: `Undid change ${changeId} (change ${data.id}; undo can revert it)`, data } : { content: `There is no change ${changeId}.` }]]);
    stream(id, run, 'I will undo that change.', { calls: [call] }, () => {
      run.phase = 'asking';
      run.asking = [call];
      append(id, 'permission.requested', { calls: [call], deadlineNs: (Date.now() + 10 * 60_000) * 1e6 }, run.runId);
      setRunStatus(id, 'awaiting-permission');
    });
  }

  function askStep(id, run) {
    const write = { id: newId('call'), name: 'write_file', arguments: JSON.stringify({ path: 'todo.md', content: TODO_TEXT }) };
    stream(id, run, 'I will add these to your to-do list.', { calls: [write] }, () => {
      run.phase = 'asking';
      run.asking = [write];
      append(id, 'permission.requested', { calls: [write], deadlineNs: (Date.now() + 10 * 60_000) * 1e6 }, run.runId);
      setRunStatus(id, 'awaiting-permission');
    });
  }

  /** The user's answer (kernel/runtime answer): only to the open question, about exactly its calls. */
  function answer(id, callIds, allowed, feedback) {
    const run = state.runs.get(id);
    if (!run || run.phase !== 'asking' || !sameSet(callIds, run.asking.map((c) => c.id))) refuse(409, NOT_ASKED);
    const asked = run.asking;
    run.asking = null;
    run.allowed = allowed;
    append(id, 'permission.answered', feedback ? { callIds, allowed, feedback } : { callIds, allowed }, run.runId);
    if (allowed) {
      return runTools(id, run, asked.map((call) => ({ call, ms: 300, content: 'Wrote 3 lines to todo.md.', ...run.results?.get(call.id) })));
    }
    for (const call of asked) {
      const reason = 'The user said no to this call.' + (feedback ? ` The user's reason: ${feedback}` : '');
      append(id, 'tool.refused', { callId: call.id, name: call.name, status: 'denied', reason }, run.runId);
    }
    startStep(id, run, -1);
  }

  /** Stop (kernel/core stop): what is in flight ends, the question closes, the run finishes cancelled. */
  function cancel(id) {
    const run = state.runs.get(id);
    if (!run) return;
    stopTimers(run);
    if (run.said) {
      // Like Go: what the user already saw stays, marked as cut off.
      append(id, 'assistant.message', { step: run.step, content: run.said, doneReason: '', model: 'mock:latest', usage: { promptTokens: 0, outputTokens: 0, durationNs: 0 }, interrupted: true }, run.runId);
    }
    for (const call of run.asking ?? []) {
      append(id, 'tool.refused', { callId: call.id, name: call.name, status: 'cancelled', reason: 'Not run: the request was stopped before the user answered.' }, run.runId);
    }
    for (const call of run.inFlight) {
      append(id, 'tool.result', { callId: call.id, name: call.name, status: 'cancelled', content: 'Stopped before it finished.' }, run.runId);
    }
    finish(id, run, { reason: 'cancelled' });
  }

  /** The one run.finished of a run; then the next waiting follow-up opens its run. */
  function finish(id, run, payload) {
    stopTimers(run);
    state.runs.delete(id);
    append(id, 'run.finished', payload, run.runId);
    setRunStatus(id, 'idle');
    openNextRun(id);
  }

  const readBody = (req) =>
    new Promise((ok) => {
      let d = '';
      req.on('data', (c) => (d += c));
      req.on('end', () => {
        try {
          ok(d ? JSON.parse(d) : {});
        } catch {
          ok(undefined);
        }
      });
    });
  const json = (res, status, body) => {
    if (body === undefined) {
      res.writeHead(status);
      return res.end();
    }
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res, status, error) => json(res, status, { error });

  // The handshake, as Go's protocol.Compatible: the major versions must match.
  // Every /api/ request but GET /api/handshake carries the client's version in
  // the Quire-Protocol header, or (the stream) in ?protocol=; else 426.
  function incompatible(v) {
    const major = (x) => (/^[+-]?\d+$/.test(x.split('.')[0]) ? Number(x.split('.')[0]) : NaN);
    const peer = major(v);
    if (Number.isNaN(peer)) return `incompatible protocol version: ${JSON.stringify(v)} is not a version like ${JSON.stringify(VERSION)}`;
    if (peer !== major(VERSION)) return `incompatible protocol version: this Quire speaks ${VERSION}, the other side ${v}; update the older one`;
    return null;
  }

  class Refusal extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }
  const refuse = (status, message) => {
    throw new Refusal(status, message);
  };

  // Commands, executed as the kernel does (kernel/runtime/commands.go): the
  // REST routes and POST /api/commands all end up here.
  const PAYLOADS = {
    'session.create': { title: 'string', parent: 'string', parentSeq: 'number' },
    'session.rename': { session: 'string', title: 'string' },
    'session.delete': { session: 'string' },
    'message.send': { session: 'string', text: 'string', intent: 'string' },
    'run.cancel': { session: 'string' },
    'permission.answer': { session: 'string', callIds: 'array', allowed: 'boolean', feedback: 'string' },
  };
  function decode(type, payload) {
    const shape = PAYLOADS[type];
    if (!shape) refuse(400, `unknown command type ${JSON.stringify(type)}`);
    const bad = (why) => refuse(400, `the command's payload is not what its type expects (${type}): ${why}`);
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) bad('not an object');
    for (const [k, v] of Object.entries(payload)) {
      if (!(k in shape)) bad(`unknown field ${JSON.stringify(k)}`);
      const ok = shape[k] === 'array' ? Array.isArray(v) && v.every((x) => typeof x === 'string') : typeof v === shape[k];
      if (!ok) bad(`${k} is not a ${shape[k] === 'array' ? 'list of strings' : shape[k]}`);
    }
    return payload;
  }
  // A command's meaning: its type and its payload with keys sorted.
  const canonical = (v) =>
    Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : v && typeof v === 'object'
        ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
        : JSON.stringify(v);

  const current = (id) => {
    const s = state.sessions.get(id);
    if (!s) refuse(404, 'That chat does not exist any more.');
    const { n, ...out } = s;
    return out;
  };

  /**
   * Runs a command and returns its result. With an idempotency key, a repeat
   * of the same command (type and payload) returns the first result with no
   * second effect; the same key with another command is 422. A key is kept
   * only with an effect: a refused command does not use it up.
   */
  function execute(cmd) {
    const why = incompatible(String(cmd?.protocolVersion ?? ''));
    if (why) refuse(426, why);
    const p = decode(cmd.type, cmd.payload);
    const key = typeof cmd.idempotencyKey === 'string' ? cmd.idempotencyKey : '';
    const fp = `${cmd.type}\0${canonical(cmd.payload)}`;
    const once = (effect) => {
      if (!key) return effect();
      const seen = state.keys.get(key);
      if (seen && seen.fp !== fp) refuse(422, `this idempotency key was already used for a different command: ${JSON.stringify(key)}`);
      if (seen) return seen.result;
      const result = effect();
      state.keys.set(key, { fp, result });
      return result;
    };
    switch (cmd.type) {
      case 'session.create':
        return once(() => {
          const t = now();
          const s = { id: 's' + ++state.n + '-' + randomUUID().slice(0, 6), title: (p.title ?? '').trim() || 'New chat', createdAt: t, updatedAt: t, lastSeq: 0, running: false, status: 'attached', runStatus: 'idle', n: state.n };
          state.sessions.set(s.id, s);
          state.logs.set(s.id, []);
          state.queues.set(s.id, []);
          append(s.id, 'session.created', { title: s.title });
          broadcast('sessions', list());
          return current(s.id);
        });
      case 'session.rename':
        once(() => {
          const s = state.sessions.get(p.session);
          if (!s) refuse(404, 'That chat does not exist any more.');
          const title = (p.title ?? '').trim();
          if (!title) refuse(400, 'A chat needs a title.');
          s.title = title;
          append(p.session, 'session.renamed', { title });
          broadcast('sessions', list());
          return {};
        });
        return current(p.session); // a repeat answers with the session as it is now, like Go
      case 'session.delete':
        return once(() => {
          if (!state.sessions.has(p.session)) refuse(404, 'That chat does not exist any more.');
          const run = state.runs.get(p.session);
          if (run) stopTimers(run);
          state.runs.delete(p.session);
          state.queues.delete(p.session);
          state.sessions.delete(p.session);
          state.logs.delete(p.session);
          broadcast('sessions', list());
          return {};
        });
      case 'message.send': {
        const text = p.text ?? '';
        if (!text.trim()) refuse(400, 'There is nothing to send.');
        const intent = p.intent || 'follow_up';
        if (!['follow_up', 'steer', 'inject'].includes(intent)) {
          refuse(400, `the command's payload is not what its type expects: intent ${JSON.stringify(p.intent)} is not follow_up, steer or inject`);
        }
        // Like Go: a message into a busy session is not refused; it waits or joins.
        return once(() => {
          if (!state.sessions.has(p.session)) refuse(404, 'That chat does not exist any more.');
          return submit(p.session, text, intent);
        });
      }
      case 'run.cancel':
        // Like Go: no key, and nothing to stop is not an error.
        cancel(p.session);
        return {};
      case 'permission.answer':
        if (!state.sessions.has(p.session)) refuse(404, 'That chat does not exist any more.');
        answer(p.session, p.callIds ?? [], !!p.allowed, (p.feedback ?? '').trim());
        return {};
    }
  }

  /** A REST route's command: this protocol version, the request's Idempotency-Key. */
  const command = (req, type, payload) => execute({ type, payload, idempotencyKey: req.headers['idempotency-key'] ?? '', protocolVersion: VERSION });

  async function api(req, res, url) {
    const m = req.method;
    const p = url.pathname;
    if (m === 'GET' && p === '/api/handshake') {
      const why = incompatible(url.searchParams.get('version') ?? '');
      return why ? fail(res, 426, why) : json(res, 200, { version: VERSION });
    }
    // Go's requireHandshake: the header, or else the query parameter.
    const why = incompatible(req.headers['quire-protocol'] || url.searchParams.get('protocol') || '');
    if (why) return fail(res, 426, why);
    try {
      return await route(req, res, url, m, p);
    } catch (e) {
      if (e instanceof Refusal) return fail(res, e.status, e.message);
      throw e;
    }
  }

  async function route(req, res, url, m, p) {
    if (m === 'GET' && p === '/api/doctor') {
      return json(res, 200, {
        ok: state.doctorOk,
        checks: [
          { name: 'database', ok: true, detail: 'quire.db is writable' },
          state.doctorOk
            ? { name: 'ollama', ok: true, detail: 'Ollama 0.17.4 at http://127.0.0.1:11434' }
            : { name: 'ollama', ok: false, detail: 'Ollama is not running at http://127.0.0.1:11434', remedy: DOCTOR_REMEDY },
        ],
      });
    }
    if (m === 'GET' && p === '/api/sessions') return json(res, 200, list());
    if (m === 'GET' && p === '/api/settings') return json(res, 200, { notesDir: state.notesDir });
    if (m === 'PUT' && p === '/api/settings') {
      const b = await readBody(req);
      if (!b || typeof b !== 'object' || typeof b.notesDir !== 'string') return fail(res, 400, 'the request body is not the JSON expected');
      // Like Go's SetNotesDir: the folder must exist; here, it must at least be absolute.
      if (b.notesDir !== '' && !b.notesDir.startsWith('/')) return fail(res, 400, notAbsolute(b.notesDir));
      state.notesDir = b.notesDir;
      return json(res, 200, { notesDir: state.notesDir });
    }
    if (p === '/api/memory' || p.startsWith('/api/memory/')) return memoryRoute(req, res, m, p);
    if (m === 'POST' && p === '/api/sessions') {
      const b = await readBody(req);
      if (!b || typeof b.title !== 'string') return fail(res, 400, 'A chat needs a title.');
      return json(res, 200, command(req, 'session.create', { title: b.title }));
    }
    if (m === 'POST' && p === '/api/commands') {
      const cmd = await readBody(req);
      if (!cmd || typeof cmd !== 'object') return fail(res, 400, 'the request body is not the JSON expected');
      return json(res, 200, execute(cmd));
    }
    if (m === 'GET' && p === '/api/stream') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      res.write('retry: 1000\n: connected\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    if (m === 'POST' && p === '/api/probe') {
      state.probe = await readBody(req);
      return json(res, 204);
    }
    if (p === '/api/documents' || p.startsWith('/api/documents/')) return documentsRoute(req, res, url, m, p);
    const sm = p.match(/^\/api\/sessions\/([^/]+)(\/events|\/messages|\/cancel|\/answer)?$/);
    if (sm) {
      const id = decodeURIComponent(sm[1]);
      const sub = sm[2] ?? '';
      if (m === 'PATCH' && sub === '') {
        const b = await readBody(req);
        if (!b) return fail(res, 400, 'the request body is not the JSON expected');
        return json(res, 200, command(req, 'session.rename', { session: id, title: typeof b.title === 'string' ? b.title : '' }));
      }
      if (m === 'DELETE' && sub === '') {
        command(req, 'session.delete', { session: id });
        return json(res, 204);
      }
      if (m === 'GET' && sub === '/events') {
        if (!state.sessions.has(id)) return fail(res, 404, 'That chat does not exist any more.');
        const from = Number(url.searchParams.get('from') ?? 0) || 0;
        return json(res, 200, state.logs.get(id).filter((e) => e.seq >= from));
      }
      if (m === 'POST' && sub === '/messages') {
        const b = await readBody(req);
        if (!b) return fail(res, 400, 'the request body is not the JSON expected');
        const payload = { session: id, text: typeof b.text === 'string' ? b.text : '' };
        if (typeof b.intent === 'string' && b.intent) payload.intent = b.intent; // omitempty, as Go
        return json(res, 202, command(req, 'message.send', payload));
      }
      if (m === 'POST' && sub === '/answer') {
        const b = await readBody(req);
        if (!b || !Array.isArray(b.callIds) || typeof b.allowed !== 'boolean') return fail(res, 400, 'the request body is not the JSON expected');
        command(req, 'permission.answer', { session: id, callIds: b.callIds.map(String), allowed: b.allowed, feedback: typeof b.feedback === 'string' ? b.feedback : '' });
        return json(res, 204);
      }
      if (m === 'POST' && sub === '/cancel') {
        command(req, 'run.cancel', { session: id });
        return json(res, 204);
      }
    }
    return fail(res, 404, 'No such API route.');
  }

  // The documents panel's routes, as library + host/httpapi answer them.
  const docsClients = new Set();
  const docsState = () => ({
    embedder: 'built-in offline embedder (mock)',
    offline: true,
    roots: state.roots.slice(),
    documents: [...state.docs.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
    progress: state.progress,
  });
  const setProgress = (p) => {
    state.progress = { running: false, phase: 'idle', total: 0, done: 0, failed: 0, etaMs: 0, queued: 0, ...p };
    const msg = `event: indexing\ndata: ${JSON.stringify(state.progress)}\n\n`;
    for (const r of docsClients) r.write(msg);
  };
  const docOf = (path, status, reason = '') => ({
    path,
    name: 'papers/' + path.slice(DOCS_ROOT.length + 1),
    root: DOCS_ROOT,
    format: DOC_FILES[path].format ?? '',
    status,
    reason,
    chunks: status === 'done' ? 2 : 0,
    size: (DOC_FILES[path].text ?? '').length,
    updated: now(),
  });
  const docLater = (ms, fn) => {
    const t = setTimeout(() => {
      state.docTimers.delete(t);
      fn();
    }, ms);
    state.docTimers.add(t);
  };
  /** One pass over `files`, a file every DOC_STEP_MS; progress as Go's library sends it. */
  function indexFiles(files, paths) {
    stopDocTimers();
    if (!state.roots.includes(DOCS_ROOT)) state.roots.push(DOCS_ROOT);
    setProgress({ running: true, phase: 'scanning', paths });
    for (const f of files) state.docs.set(f, docOf(f, 'queued'));
    let done = 0;
    let failed = 0;
    const step = () => {
      if (done === files.length) return setProgress({ phase: 'done', total: files.length, done, failed, paths });
      const f = files[done];
      const why = DOC_FILES[f].failed;
      state.docs.set(f, docOf(f, why ? 'failed' : 'done', why));
      done++;
      if (why) failed++;
      setProgress({ running: true, phase: 'indexing', total: files.length, done, failed, currentFile: files[done] ?? f, etaMs: (files.length - done) * DOC_STEP_MS, paths });
      docLater(DOC_STEP_MS, step);
    };
    docLater(DOC_STEP_MS, () => {
      setProgress({ running: true, phase: 'indexing', total: files.length, done: 0, failed: 0, currentFile: files[0], etaMs: files.length * DOC_STEP_MS, paths });
      docLater(DOC_STEP_MS, step);
    });
  }
  const known = (path) => typeof path === 'string' && (state.docs.has(path) || state.roots.includes(path));

  async function documentsRoute(req, res, url, m, p) {
    if (m === 'GET' && p === '/api/documents') return json(res, 200, docsState());
    if (m === 'GET' && p === '/api/documents/stream') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      res.write(`: connected\n\nevent: indexing\ndata: ${JSON.stringify(state.progress)}\n\n`);
      docsClients.add(res);
      req.on('close', () => docsClients.delete(res));
      return;
    }
    if (m === 'POST' && p === '/api/documents') {
      const b = await readBody(req);
      if (!b || !Array.isArray(b.paths)) return fail(res, 400, 'the request body is not the JSON expected');
      const paths = b.paths.filter((x) => typeof x === 'string' && x.trim());
      if (!paths.length) return fail(res, 400, 'nothing to index: drop a file or folder on the window, or type its full path');
      const files = [];
      for (const path of paths) {
        if (!path.startsWith('/')) return fail(res, 400, `"${path}": give the full path, like /home/you/Documents`);
        if (path === DOCS_ROOT) files.push(...Object.keys(DOC_FILES));
        else if (DOC_FILES[path]) files.push(path);
        else return fail(res, 400, `${path}: ${NO_SUCH_PATH}`);
      }
      indexFiles([...new Set(files)], paths);
      return json(res, 202);
    }
    if (m === 'POST' && p === '/api/documents/cancel') {
      if (state.progress.running) {
        stopDocTimers();
        setProgress({ ...state.progress, running: false, phase: 'cancelled', currentFile: undefined, etaMs: 0 });
      }
      return json(res, 204);
    }
    if (m === 'POST' && (p === '/api/documents/retry' || p === '/api/documents/remove')) {
      const b = await readBody(req);
      if (!b || typeof b.path !== 'string') return fail(res, 400, 'the request body is not the JSON expected');
      if (!known(b.path)) return fail(res, 404, `${b.path}: ${NOT_INDEXED}`);
      if (p.endsWith('/remove')) {
        for (const k of [...state.docs.keys()]) if (k === b.path || k.startsWith(b.path + '/')) state.docs.delete(k);
        state.roots = state.roots.filter((r) => r !== b.path);
        setProgress({ phase: 'done' });
      } else {
        indexFiles([...state.docs.keys()].filter((k) => (k === b.path || k.startsWith(b.path + '/')) && state.docs.get(k).status === 'failed'), [b.path]);
      }
      return json(res, 202);
    }
    if (m === 'GET' && p === '/api/documents/source') {
      const path = url.searchParams.get('path') ?? '';
      if (!path.startsWith('/')) return fail(res, 400, `"${path}": give the full path, like /home/you/Documents`);
      const d = state.docs.get(path);
      if (!d) return fail(res, 404, `${path}: ${NOT_INDEXED}`);
      if (d.status === 'failed') return fail(res, 409, `Quire could not read this document; see its reason in the documents panel, fix the file and retry (${d.reason})`);
      return json(res, 200, { path, name: d.name, format: d.format, text: DOC_FILES[path].text });
    }
    return fail(res, 404, 'No such API route.');
  }

  /** Go's host/httpapi/memory.go over state.memory. */
  async function memoryRoute(req, res, m, p) {
    const listed = () => ({ items: state.memory, approval: state.memoryApproval, learn: state.memoryLearn });
    if (m === 'GET' && p === '/api/memory') return json(res, 200, listed());
    if (m === 'PUT' && p === '/api/memory/settings') {
      const b = await readBody(req);
      if (!b || (typeof b.approval !== 'boolean' && typeof b.learn !== 'boolean')) return fail(res, 400, 'send {"approval": true|false} and/or {"learn": true|false}');
      if (typeof b.approval === 'boolean') state.memoryApproval = b.approval;
      if (typeof b.learn === 'boolean') state.memoryLearn = b.learn;
      return json(res, 200, listed());
    }
    const mm = p.match(/^\/api\/memory\/([^/]+)(\/review)?$/);
    if (!mm) return fail(res, 404, 'No such API route.');
    const id = decodeURIComponent(mm[1]);
    const it = state.memory.find((x) => x.id === id);
    if (!it) return fail(res, 404, memoryUnknown(id));
    if (m === 'PATCH' && !mm[2]) {
      const b = await readBody(req);
      if (!b || typeof b.text !== 'string') return fail(res, 400, 'send {"text": "the new text"}');
      if (!b.text.trim()) return fail(res, 400, MEMORY_EMPTY);
      it.text = b.text.trim();
      it.updatedAt = new Date().toISOString();
      return json(res, 200, it);
    }
    if (m === 'DELETE' && !mm[2]) {
      state.memory = state.memory.filter((x) => x !== it);
      return json(res, 204);
    }
    if (m === 'POST' && mm[2]) {
      const b = await readBody(req);
      if (!b || typeof b.approve !== 'boolean') return fail(res, 400, 'send {"approve": true} or {"approve": false}');
      if (it.status !== 'pending') return fail(res, 409, 'This memory is already kept; only pending items are approved or rejected.');
      if (b.approve) it.status = 'kept';
      else state.memory = state.memory.filter((x) => x !== it);
      return json(res, 204);
    }
    return fail(res, 404, 'No such API route.');
  }

  function serveStatic(req, res, url) {
    let rel = decodeURIComponent(url.pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    let file = normalize(join(dist, rel));
    if (!file.startsWith(dist) || !existsSync(file) || !statSync(file).isFile()) file = join(dist, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      return res.end('frontend/dist is not built: run npm run build');
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    createReadStream(file).pipe(res);
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (url.pathname === '/__mock/reset' && req.method === 'POST') {
        const b = (await readBody(req)) ?? {};
        reset(b);
        if (b.docsIndexed) {
          state.roots = [DOCS_ROOT];
          for (const f of Object.keys(DOC_FILES)) state.docs.set(f, docOf(f, DOC_FILES[f].failed ? 'failed' : 'done', DOC_FILES[f].failed ?? ''));
        }
        broadcast('sessions', list());
        setProgress({});
        return json(res, 204);
      }
      if (url.pathname === '/__mock/probe') return json(res, 200, state.probe);
      if (url.pathname.startsWith('/api/')) return await api(req, res, url);
      return serveStatic(req, res, url);
    } catch (e) {
      fail(res, 500, String(e?.message ?? e));
    }
  });
  const keepAlive = setInterval(() => {
    for (const res of clients) res.write(': ping\n\n');
  }, 15000);
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    close: () =>
      new Promise((ok) => {
        clearInterval(keepAlive);
        reset();
        for (const res of clients) res.end();
        clients.clear();
        for (const res of docsClients) res.end();
        docsClients.clear();
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const m = await startMock({ port: Number(process.argv[2] ?? 0) });
  console.log(m.url);
}
