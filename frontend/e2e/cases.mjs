// The e2e cases, run against the real backend (test/e2e/browser_test.go:
// `quire serve`'s handler, the real runtime and SQLite, the fake Ollama
// server). Each gets a fresh browser context at 1280x800; the backend is one
// for the whole run, so a case opens a chat of its own and sets up what it
// needs (the notes folder, the documents) through the API. The fake model
// answers the prompts in QUIRE_E2E_FIXTURES as test/e2e/script_test.go
// scripts them and echoes the rest ("You said: …").
//
// The "inside Wails" cases replace window.go and window.runtime with
// fakeWails, a stand-in for app.go's bindings: no HTTP backend can produce
// Wails bindings, and the real window is tested under Xvfb (test/desktop).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';

/** What the backend's Go side made for the cases (browser_test.go fixtures). */
const FX = (() => {
  const raw = process.env.QUIRE_E2E_FIXTURES;
  return raw ? JSON.parse(raw) : { prompts: {} };
})();
const P = FX.prompts;
/**
 * Each quire serve's printed link, by origin: the browser opens it (its
 * secret becomes the page's HttpOnly cookie) and Node-side calls send the
 * secret as a bearer token, as a client that is not a browser does.
 */
const LINKS = new Map([process.env.QUIRE_E2E_URL, FX.downUrl, FX.firstUrl].filter(Boolean).map((l) => [new URL(l).origin, l]));
const secretOf = (base) => new URL(LINKS.get(base) ?? base).searchParams.get('token') ?? '';
/** The second quire serve, whose Ollama is not running. */
const DOWN = FX.downUrl ? new URL(FX.downUrl).origin : '';
/** The third quire serve, a new user's: Ollama runs, with no model installed (qwen3:4b can be pulled). */
const FIRST = FX.firstUrl ? new URL(FX.firstUrl).origin : '';
const VERSION = '1.0';
const CITE_REPLY = P.citeReply;
/** Go's sentences (library/errors.go), as the page shows them. */
const NOT_INDEXED = 'this file is not in the document index; drop it on the window to add it';
const NO_SUCH_PATH = 'there is no such file or folder; check the path';
const RELATIVE_PATH = 'give the full path, like /home/you/Documents';
/** Go's sentence (memory.checkText) for an empty memory text. */
const MEMORY_EMPTY = 'The memory text is empty: write the fact or preference to remember.';

const WAIT_MS = 15000;

/** Node-side call to the API, with the protocol header and the secret every /api/ request needs. */
function api(base, path, { headers, ...init } = {}) {
  return fetch(base + path, { ...init, headers: { 'Quire-Protocol': VERSION, Authorization: `Bearer ${secretOf(base)}`, ...headers } });
}

/** Polls `fn` until it returns a truthy value; fails with `what` and the last value. */
async function until(fn, what, timeout = WAIT_MS) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last, null, 0)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

/**
 * A server of another origin (another port of 127.0.0.1, so the same site):
 * a page with no policy of its own, and every connection and request it
 * hears. It stands for a server off the laptop, and for another page on
 * this machine.
 */
async function otherOrigin() {
  const heard = [];
  const server = createServer((req, res) => {
    heard.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>elsewhere</title><p>another page</p>');
  });
  // A connection counts, not only a request: a preconnect says as much.
  server.on('connection', (sock) => heard.push(`a connection from port ${sock.remotePort}`));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    heard,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const $ = (page, id) => page.locator(`[data-testid="${id}"]`);

/** Opens the printed link, as the user does; it lands on the bare address. */
async function open(page, base) {
  await page.goto(LINKS.get(base) ?? base, { waitUntil: 'domcontentloaded' });
  assert(page.url() === `${base}/`, `the link lands on the bare address (the secret leaves the address bar), got ${page.url()}`);
  await $(page, 'composer').waitFor({ timeout: WAIT_MS });
  // The composer is there before the list of chats: a case starts once the
  // list came (and the newest chat, if any, was opened), as a user who
  // waits a moment does; early-words types before it.
  await page.locator('[data-testid="session-list"][aria-busy="false"]').waitFor({ timeout: WAIT_MS });
  assert((await page.title()) === 'Quire', `page title is "Quire", got "${await page.title()}"`);
}

/** What the conversation shows: [{role, text}] (text of the rendered body). */
function messages(page) {
  return page.$$eval('[data-testid="message"]', (els) =>
    els.map((el) => ({ role: el.getAttribute('data-role'), text: (el.querySelector('[data-part="body"]') ?? el).textContent.trim() })),
  );
}

/** The first-run hint's words (NotesHint.svelte). */
const HINT = 'Choose the folder of your notes so Quire can read and organise them. Quire asks before it changes anything.';

/** The sidebar's notes folder row: {name, title (the full path), button}. */
function notesRow(page) {
  return page.evaluate(() => {
    const row = document.querySelector('[data-testid="notes-folder"]');
    const name = row?.querySelector('[data-testid="notes-folder-name"]');
    return {
      name: name?.textContent?.trim() ?? null,
      title: name?.getAttribute('title') ?? null,
      button: row?.querySelector('[data-testid="notes-folder-choose"]')?.textContent?.trim() ?? null,
    };
  });
}

/** The checklist items of `root` (a locator): [{text, done, struck}]. */
function todoItems(root) {
  return root.locator('[data-testid="todo-item"]').evaluateAll((els) =>
    els.map((el) => {
      const text = el.querySelector('.text');
      return {
        text: text.textContent.trim(),
        done: el.getAttribute('data-done') === 'true',
        struck: getComputedStyle(text).textDecorationLine.includes('line-through'),
      };
    }),
  );
}

function sessionTitles(page) {
  return page.$$eval('[data-testid="session-item"] [data-testid="session-title"]', (els) => els.map((e) => e.textContent.trim()));
}

/** True when a reply (or error) is there and nothing is streaming, checked in one go. */
function settled(page) {
  return page.evaluate(() => {
    const last = [...document.querySelectorAll('[data-testid="message"]')].at(-1);
    return (
      !document.querySelector('[data-testid="stop"]') &&
      !document.querySelector('[data-role="assistant"].streaming') &&
      !!last &&
      ['assistant', 'error', 'notice'].includes(last.getAttribute('data-role'))
    );
  });
}

async function composerFocused(page) {
  return page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'composer');
}

/**
 * "+ New chat": the empty draft opens and no chat is made yet — the first
 * message makes it (send). The sidebar keeps its count.
 */
async function newChat(page) {
  // The sidebar first lists every chat the backend has (other cases' too;
  // a batch worker's session is no chat, and is not listed).
  const all = (await (await api(new URL(page.url()).origin, '/api/sessions')).json()).filter((s) => !s.kind).length;
  await until(async () => (await $(page, 'session-item').count()) === all, `the ${all} chats in the sidebar`);
  await $(page, 'new-session').click();
  await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"]').count()) === 0, 'the new chat draft (no chat active)');
  assert((await $(page, 'session-item').count()) === all, 'a click on New chat makes no chat before its first message');
}

/** The id of the chat the sidebar shows active, once one is. */
async function activeId(page) {
  await page.locator('[data-testid="session-item"][aria-current="page"]').waitFor({ timeout: WAIT_MS });
  return page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
}

async function send(page, text) {
  await $(page, 'composer').fill(text);
  await $(page, 'composer').press('Enter');
}

/**
 * Records every state the models screen's pull rows show ("running:40"),
 * in window.__pullStates, so a quick pull's progress is seen.
 */
function recordPulls(page) {
  return page.evaluate(() => {
    window.__pullStates = [];
    new MutationObserver(() => {
      for (const r of document.querySelectorAll('[data-testid="pull-row"]')) {
        const bar = r.querySelector('[data-testid="pull-bar"]');
        window.__pullStates.push(`${r.dataset.state}:${bar?.getAttribute('aria-valuenow') ?? ''}`);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

/** The tool-call cards on screen, in document order. */
function toolCards(page) {
  return page.$$eval('[data-testid="tool-card"]', (els) =>
    els.map((el) => {
      const t = (id) => el.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? '';
      return {
        name: t('tool-name'),
        status: el.getAttribute('data-status'),
        chip: t('tool-status'),
        summary: t('tool-summary'),
        duration: t('tool-duration'),
        result: el.querySelector('[data-testid="tool-result"]')?.textContent ?? '',
      };
    }),
  );
}

/** What the conversation column shows, in order: messages, tool steps, questions and pending inputs. */
function timeline(page) {
  return page.$$eval('[data-testid="message"], [data-testid="tool-step"], [data-testid="permission"], [data-testid="pending-input"]', (els) =>
    els.map((el) => {
      const id = el.getAttribute('data-testid');
      if (id === 'message') return `${el.getAttribute('data-role')}:${(el.querySelector('[data-part="body"]') ?? el).textContent.trim()}`;
      if (id === 'tool-step') return `tools:${[...el.querySelectorAll('[data-testid="tool-name"]')].map((n) => n.textContent.trim()).join(',')}`;
      if (id === 'permission') return `permission:${el.getAttribute('data-state')}`;
      return `pending:${el.getAttribute('data-intent')}:${el.querySelector('.bubble').textContent.trim()}`;
    }),
  );
}

/** Records the JSON bodies the page POSTs to paths matching `re`. */
function recordPosts(page, re) {
  const bodies = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && re.test(new URL(r.url()).pathname)) bodies.push(JSON.parse(r.postData() ?? 'null'));
  });
  return bodies;
}

/** The page's last view snapshot, as POST /api/probe wrote it (null before the first). */
function probe() {
  return existsSync(FX.probePath) ? JSON.parse(readFileSync(FX.probePath, 'utf8')) : null;
}

/** Opens a new chat and sends each text (the fake model echoes it), one reply at a time; the chat's id. */
async function chatWith(page, base, ...texts) {
  await open(page, base);
  await newChat(page);
  for (const text of texts) {
    await send(page, text);
    await until(async () => (await messages(page)).some((m) => m.text === `You said: ${text}`) && (await settled(page)), `the reply to "${text}"`);
  }
  return shownId(page);
}

/** The id of the chat the page shows. */
function shownId(page) {
  return page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
}

/** The log of the chat the page shows. */
async function activeLog(page, base) {
  const id = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
  return (await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=0`)).json();
}

/** Indexes the fixtures' documents folder through the API and waits until garden.md and soil.txt are done. */
async function indexDocs(base) {
  await api(base, '/api/documents', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ paths: [FX.docsDir] }) });
  await until(async () => {
    const docs = (await (await api(base, '/api/documents')).json()).documents;
    return ['garden.md', 'soil.txt'].every((f) => docs.some((d) => d.path === join(FX.docsDir, f) && d.status === 'done'));
  }, 'the folder indexed');
}

/** Points the note tools at the fixtures' notes folder (a setting, through the API). */
async function useNotes(base, dir = FX.notesDir) {
  const r = await api(base, '/api/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ notesDir: dir }) });
  assert(r.status === 200, `the notes folder set, got ${r.status} ${await r.text()}`);
}

/** Removes every document from the index, so a case starts from none. */
async function clearDocuments(base) {
  const docs = async () => (await (await api(base, '/api/documents')).json()).documents ?? [];
  for (const d of await docs()) {
    await api(base, '/api/documents/remove', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: d.path }) });
  }
  await until(async () => (await docs()).length === 0, 'an empty document index');
}

/**
 * The init script of the Wails cases: a fake window.go.main.App and
 * window.runtime that behave like app.go. Every method but Handshake, Doctor
 * and ReportView is refused until Handshake succeeded; Send takes an
 * idempotency key. It records window.__calls (method names in call order),
 * __refused, __handshakes (versions asked for), __keys (Send's keys) and
 * __probe (ReportView snapshots). Runs in the page: self-contained.
 */
function fakeWails({ speaks, notesDir = '/home/ann/Notes', dialog = [] }) {
  const L = {};
  const sessions = [];
  const logs = {};
  const sent = {};
  let n = 0;
  let greeted = false;
  const now = () => new Date().toISOString();
  const emit = (name, data) => (L[name] || []).forEach((f) => f(data));
  const copy = () => sessions.map((s) => ({ ...s }));
  const make = (id, type, payload, runId) => {
    const log = logs[id];
    const e = { session: id, seq: log.length, type, time: now(), visibility: 'public', payload };
    if (runId) e.runId = runId;
    log.push(e);
    const s = sessions.find((x) => x.id === id);
    s.lastSeq = e.seq;
    s.updatedAt = e.time;
    return e;
  };
  window.__calls = [];
  window.__refused = [];
  window.__handshakes = [];
  window.__keys = [];
  window.__probe = [];
  window.__sendWith = [];
  // The documents panel as app_docs.go binds it; window.__drop(paths) is what
  // Go does when Wails' OnFileDrop fires: progress over quire:indexing.
  let docs = [];
  let progress = { running: false, phase: 'idle', total: 0, done: 0, failed: 0, etaMs: 0, queued: 0 };
  const setProgress = (p) => {
    progress = { ...progress, ...p };
    emit('quire:indexing', progress);
  };
  window.__drop = (paths) => {
    if (paths.some((p) => !p.startsWith('/'))) return emit('quire:drop-error', 'there is no such file or folder; check the path');
    const root = paths[0];
    setProgress({ running: true, phase: 'scanning', total: 0, done: 0, failed: 0, paths });
    setTimeout(() => setProgress({ phase: 'indexing', total: 2, done: 1, currentFile: root + '/notes.md', etaMs: 3000 }), 150);
    setTimeout(() => {
      docs = [
        { path: root + '/notes.md', name: 'papers/notes.md', root, format: 'markdown', status: 'done', chunks: 3, size: 10, updated: now() },
        { path: root + '/scan.txt', name: 'papers/scan.txt', root, format: 'text', status: 'failed', reason: 'binary content: the file looks like image/png, not text', chunks: 0, size: 10, updated: now() },
      ];
      setProgress({ running: false, phase: 'done', total: 2, done: 2, failed: 1, currentFile: undefined, etaMs: 0 });
    }, 450);
  };
  // What the folder dialog answers, one click after another ('' = cancelled); then notesDir.
  const answers = dialog.slice();
  let folder = notesDir;
  let asking = null; // {id, runId, call}: a question the native dialog would be asking
  // Wails rejects with the Go error's text, a string.
  const refuse = (name, sentence) => {
    window.__refused.push(name);
    return Promise.reject(sentence);
  };
  const bound = (name, f, gated = true) => (...args) => {
    window.__calls.push(name);
    if (gated && !greeted) return refuse(name, 'the window has not shaken hands with Quire yet (call Handshake first); reload the window');
    return (async () => f(...args))();
  };
  window.runtime = {
    EventsOnMultiple(name, cb, max) {
      window.__max = max;
      (L[name] ??= []).push(cb);
      return () => (L[name] = L[name].filter((f) => f !== cb));
    },
    LogInfo() {},
    BrowserOpenURL() {},
  };
  window.go = {
    main: {
      App: {
        Handshake: (version) => {
          window.__calls.push('Handshake');
          window.__handshakes.push(version);
          if (String(version).split('.')[0] !== speaks.split('.')[0]) {
            return refuse('Handshake', `incompatible protocol version: this Quire speaks ${speaks}, the other side ${version}; update the older one`);
          }
          greeted = true;
          return Promise.resolve(speaks);
        },
        Doctor: bound('Doctor', () => ({ ok: true, checks: [{ name: 'ollama', ok: true, detail: 'the fake window' }] }), false),
        ListSessions: bound('ListSessions', () => copy()),
        NewSession: bound('NewSession', (title) => {
          // As Go's session.create: no title is "New chat", until the first message names it.
          title = title || 'New chat';
          const s = { id: 'w' + ++n, title, auto: title === 'New chat', createdAt: now(), updatedAt: now(), lastSeq: 0, running: false };
          sessions.unshift(s);
          logs[s.id] = [];
          emit('quire:events', [make(s.id, 'session.created', { title })]);
          emit('quire:sessions', copy());
          return { ...s };
        }),
        RenameSession: bound('RenameSession', (id, title) => {
          const s = sessions.find((x) => x.id === id);
          s.title = title;
          emit('quire:sessions', copy());
          return { ...s };
        }),
        DeleteSession: bound('DeleteSession', () => {}),
        Events: bound('Events', (id, from) => (logs[id] || []).filter((e) => e.seq >= from)),
        Send: bound('Send', (id, text, key) => {
          window.__keys.push(key);
          if (!text.trim()) throw 'There is nothing to send.';
          if (typeof key !== 'string' || !key) throw 'Send needs an idempotency key.';
          const again = sent[key];
          if (again && (again.id !== id || again.text !== text)) throw `this idempotency key was already used for a different command: "${key}"`;
          if (again) return again.runId; // a repeat: no second message
          emit('quire:events', [make(id, 'user.message', { text })]);
          const named = sessions.find((x) => x.id === id);
          if (named?.auto) {
            // Go's automatic title from the first message (kernel/runtime autoTitle).
            named.auto = false;
            named.title = text.trim().slice(0, 40);
            emit('quire:events', [make(id, 'session.renamed', { title: named.title, auto: true })]);
            emit('quire:sessions', copy());
          }
          const runId = 'wr' + ++n;
          sent[key] = { id, text, runId };
          if (text.startsWith('/ask')) {
            // A step that asks: in the window, Go shows a native dialog; the page only shows the question.
            const call = { id: 'wc' + ++n, name: 'write_file', arguments: JSON.stringify({ path: 'todo.md', content: 'Buy seeds' }) };
            asking = { id, runId, call };
            setTimeout(() => {
              emit('quire:events', [
                make(id, 'run.started', { model: 'm' }, runId),
                make(id, 'assistant.message', { step: 1, content: '', toolCalls: [call], doneReason: 'stop', model: 'm', usage: { promptTokens: 3, outputTokens: 1, durationNs: 1e8 } }, runId),
                make(id, 'permission.requested', { calls: [call], deadlineNs: (Date.now() + 600000) * 1e6 }, runId),
              ]);
            }, 50);
            return runId;
          }
          setTimeout(() => {
            // One batch with several events, as the Go side batches tokens.
            emit('quire:events', [
              make(id, 'run.started', { model: 'm' }, runId),
              make(id, 'assistant.delta', { content: 'Wails ' }, runId),
              make(id, 'assistant.delta', { content: 'says: ' }, runId),
            ]);
            setTimeout(() => {
              emit('quire:events', [
                make(id, 'assistant.delta', { content: text }, runId),
                make(id, 'assistant.message', { content: `Wails says: ${text}`, doneReason: 'stop', model: 'm', usage: { promptTokens: 3, outputTokens: 3, durationNs: 5e8 } }, runId),
                make(id, 'run.finished', { reason: 'completed' }, runId),
              ]);
            }, 150);
          }, 50);
          return runId;
        }),
        SendWith: bound('SendWith', (id, text, intent, key) => {
          window.__keys.push(key);
          window.__sendWith.push([id, text, intent]);
          const inputId = 'wi' + ++n;
          const q = asking;
          emit('quire:events', [make(id, 'input.received', { inputId, intent, text, runId: 'wr' + ++n })]);
          if (q) {
            // Then the dialog is answered Yes: the call runs and the next step takes up the steer.
            asking = null;
            setTimeout(() => {
              emit('quire:events', [
                make(id, 'permission.answered', { callIds: [q.call.id], allowed: true }, q.runId),
                make(id, 'tool.started', { callId: q.call.id, name: q.call.name }, q.runId),
                make(id, 'tool.result', { callId: q.call.id, name: q.call.name, status: 'success', content: 'Wrote 1 line to todo.md.', durationNs: 3e8 }, q.runId),
                make(id, 'user.message', { text, inputId, intent }, q.runId),
                make(id, 'assistant.message', { step: 2, content: `Done, and noted: ${text}`, doneReason: 'stop', model: 'm', usage: { promptTokens: 3, outputTokens: 3, durationNs: 5e8 } }, q.runId),
                make(id, 'run.finished', { reason: 'completed' }, q.runId),
              ]);
            }, 600);
          }
          return q ? q.runId : 'wr' + n;
        }),
        Cancel: bound('Cancel', () => {}),
        ReportView: bound('ReportView', (snap) => void window.__probe.push(snap), false),
        Documents: bound('Documents', () => ({ embedder: 'ollama:nomic-embed-text', offline: false, roots: [], documents: docs, progress })),
        IndexPaths: bound('IndexPaths', (paths) => window.__drop(paths)),
        CancelIndexing: bound('CancelIndexing', () => {}),
        RetryDocument: bound('RetryDocument', () => {}),
        RemoveDocument: bound('RemoveDocument', () => {}),
        DocumentSource: bound('DocumentSource', (path) => Promise.reject(`${path}: this file is not in the document index; drop it on the window to add it`)),
        // Like app.go: neither needs the handshake.
        NotesFolder: bound('NotesFolder', () => folder, false),
        ChooseNotesFolder: bound(
          'ChooseNotesFolder',
          () => {
            const chosen = answers.length ? answers.shift() : folder;
            if (chosen) folder = chosen;
            return chosen;
          },
          false,
        ),
      },
    },
  };
}

export const cases = [
  {
    name: 'send a message and see the streamed reply rendered',
    slug: 'send-stream',
    async run({ page, base }) {
      await open(page, base);
      await until(() => composerFocused(page), 'the composer to have focus on load');
      // The first case: the backend has no chat yet, so the message opens one titled by it.
      assert((await $(page, 'session-item').count()) === 0, 'no chat before the first message');

      // Shift+Enter is a new line, not a send.
      await $(page, 'composer').fill('line one');
      await $(page, 'composer').press('Shift+Enter');
      await $(page, 'composer').pressSequentially('line two');
      assert((await $(page, 'composer').inputValue()) === 'line one\nline two', 'Shift+Enter inserts a newline');
      assert((await $(page, 'message').count()) === 0, 'nothing was sent by Shift+Enter');

      await send(page, P.stream);
      assert((await $(page, 'composer').inputValue()) === '', 'the composer is cleared after sending');
      await until(async () => (await messages(page)).some((m) => m.role === 'user' && m.text === P.stream), 'the user bubble (raw text)');
      // While streaming: the caret class and the Stop button are there.
      await page.locator('[data-role="assistant"].streaming').waitFor({ timeout: WAIT_MS });
      await $(page, 'stop').waitFor({ timeout: WAIT_MS });
      const reply = 'You said: ' + P.stream.replaceAll('**', '');
      await until(async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === reply), 'the whole streamed reply');
      // Markdown in the reply is rendered, not shown raw.
      assert((await page.locator('[data-role="assistant"] strong').textContent()) === 'Quire', 'bold is rendered');
      await until(async () => (await page.locator('[data-role="assistant"].streaming').count()) === 0, 'streaming to end');
      await until(async () => (await $(page, 'stop').count()) === 0, 'Stop to go away');
      // The usage under the reply is the one Go logged.
      const log = await activeLog(page, base);
      const { usage } = log.filter((e) => e.type === 'assistant.message').at(-1).payload;
      const shown = await $(page, 'usage').textContent();
      assert(usage.promptTokens > 0 && shown.includes(`${usage.promptTokens} prompt`) && shown.includes(`${usage.outputTokens} output tokens`), `usage under the reply, got "${shown}" for ${JSON.stringify(usage)}`);
      const msgs = await messages(page);
      assert(msgs.filter((m) => m.role === 'assistant').length === 1, 'exactly one reply (deltas not duplicated)');
      // The test probe (POST /api/probe, written by Go) got the same picture.
      const snap = await until(async () => {
        const p = probe();
        return p && !p.streaming && p.messages.length === 2 && p;
      }, 'a probe snapshot after the reply');
      assert(snap.messages[1].text === reply, `probe reply text, got ${JSON.stringify(snap.messages)}`);
      assert(snap.activeSession && snap.sessionTitles[0] === P.stream, `probe session, got ${JSON.stringify(snap)}`);
      assert(snap.banner === null, 'no banner in the probe');
    },
  },

  {
    name: 'create, rename and delete a session (with the confirm dialog)',
    slug: 'sessions',
    async run({ page, base, shot }) {
      await open(page, base);
      // New chat twice makes nothing; a draft's text waits while another chat is looked at.
      const listed = await $(page, 'session-item').count();
      await newChat(page);
      await newChat(page);
      await until(() => composerFocused(page), 'composer focus after New chat');
      if (listed > 0) {
        await $(page, 'composer').fill('pots for the balcony');
        await $(page, 'session-item').first().locator('button').first().click();
        await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"]').count()) === 1, 'another chat open');
        assert((await $(page, 'composer').inputValue()) === '', 'the other chat has its own (empty) composer');
        await newChat(page);
        await until(async () => (await $(page, 'composer').inputValue()) === 'pots for the balcony', 'the draft text back');
      }
      // The first message makes the chat, named from it by Quire (an automatic title).
      await send(page, 'pots for the balcony');
      await until(async () => (await sessionTitles(page))[0] === 'pots for the balcony', 'the first chat, named by its message');
      await until(() => settled(page), 'the first reply');
      await newChat(page);
      await send(page, 'seeds to order');
      await until(async () => (await sessionTitles(page))[0] === 'seeds to order', 'the second chat, named by its message');
      await until(() => settled(page), 'the second reply');
      let titles = await sessionTitles(page);
      assert(titles[0] === 'seeds to order' && titles[1] === 'pots for the balcony', `two chats on top, got ${JSON.stringify(titles)}`);
      assert(titles.length === listed + 2, `exactly two chats made, got ${JSON.stringify(titles)}`);

      // Rename with the pencil.
      const first = $(page, 'session-item').first();
      await first.hover();
      await first.locator('[data-testid="rename"]').click();
      const input = $(page, 'rename-input');
      await input.waitFor();
      await input.fill('Garden notes');
      await input.press('Enter');
      await until(async () => (await sessionTitles(page))[0] === 'Garden notes', 'the renamed title');
      await until(async () => (await page.locator('.header .title').textContent()) === 'Garden notes', 'the header title');

      // Escape cancels a rename.
      await first.locator('[data-testid="session-title"]').dblclick();
      await input.fill('Not this');
      await input.press('Escape');
      assert((await sessionTitles(page))[0] === 'Garden notes', 'Escape keeps the old title');

      // Double-click renames too.
      await first.locator('[data-testid="session-title"]').dblclick();
      await input.fill('Garden plans');
      await input.press('Enter');
      await until(async () => (await sessionTitles(page))[0] === 'Garden plans', 'the title after double-click rename');

      // Switching sessions moves focus to the composer.
      await $(page, 'session-item').nth(1).locator('button').first().click();
      await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"] [data-testid="session-title"]').textContent()) === 'pots for the balcony', 'the second chat active');
      // A user's title is never replaced: more messages leave "Garden plans" as it is.
      await until(() => composerFocused(page), 'composer focus after switching');

      // Delete asks first; Cancel keeps it.
      const count = await $(page, 'session-item').count();
      await first.hover();
      await first.locator('[data-testid="delete"]').click();
      const dialog = $(page, 'confirm-dialog');
      await dialog.waitFor();
      const said = (await dialog.textContent()).replace(/\s+/g, ' ');
      assert(said.includes('Delete “Garden plans”? This removes its whole conversation.'), `dialog text, got "${said}"`);
      // The confirm fades in: its picture once it has.
      await $(page, 'confirm-dialog').evaluate((el) => Promise.all(el.parentElement.getAnimations().map((a) => a.finished)));
      await page.screenshot({ path: shot.replace(/\.png$/, '-confirm.png') });
      await $(page, 'confirm-cancel').click();
      await dialog.waitFor({ state: 'detached' });
      assert((await $(page, 'session-item').count()) === count, 'Cancel keeps the session');

      // Escape also cancels.
      await first.locator('[data-testid="delete"]').click();
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert((await $(page, 'session-item').count()) === count, 'Escape keeps the session');

      await first.locator('[data-testid="delete"]').click();
      await $(page, 'confirm-delete').click();
      await until(async () => (await $(page, 'session-item').count()) === count - 1, 'the session to go');
      titles = await sessionTitles(page);
      assert(!titles.includes('Garden plans'), `deleted title gone, got ${JSON.stringify(titles)}`);

      // It is gone on the server too.
      await page.reload();
      await $(page, 'composer').waitFor();
      await until(async () => (await $(page, 'session-item').count()) === count - 1, 'the deletion to survive a reload');
    },
  },

  {
    name: 'without Ollama a new user is told what to install, and a chat that failed shows the banner with the window\'s hint',
    slug: 'doctor-banner',
    async run({ page, shot }) {
      // The same backend, whose doctor finds no Ollama at its address.
      const base = DOWN;
      const report = await (await api(base, '/api/doctor')).json();
      const failing = report.checks.filter((c) => !c.ok);
      const passing = report.checks.filter((c) => c.ok);
      assert(!report.ok && failing.length === 1 && failing[0].name === 'Ollama' && passing.length > 0, `one failing check, got ${JSON.stringify(report)}`);
      const [bad] = failing;
      // The terminal keeps its flags; the window is given its own words and a button.
      assert(bad.remedy.includes('--ollama-host or OLLAMA_HOST') && bad.action === 'install-ollama' && bad.hint && !bad.hint.includes('--'), `the window's hint and action, got ${JSON.stringify(bad)}`);
      await open(page, base);
      const first = $(page, 'first-run');
      await first.waitFor({ timeout: WAIT_MS });
      assert((await first.getAttribute('data-state')) === 'install', 'the first screen says what to install');
      assert((await $(page, 'install-line').textContent()) === 'curl -fsSL https://ollama.com/install.sh | sh', 'the official install line, to copy');
      const firstText = (await first.textContent()).replace(/\s+/g, ' ');
      assert(firstText.includes('https://ollama.com/download'), `the download page, got "${firstText}"`);
      assert(!firstText.includes('OLLAMA_HOST') && !firstText.includes('--ollama-host'), `no flags in the window, got "${firstText}"`);
      await $(page, 'check-again').click();
      await until(async () => (await $(page, 'check-again').textContent()).trim() === 'Check again', 'the check to come back');
      assert((await first.getAttribute('data-state')) === 'install', 'Ollama is still not there');
      // Ollama elsewhere is a setting: the first screen opens Settings.
      await $(page, 'first-run-settings').click();
      await $(page, 'settings-panel').waitFor({ timeout: WAIT_MS });
      await page.keyboard.press('Escape');
      await $(page, 'settings-panel').waitFor({ state: 'detached' });
      await page.screenshot({ path: shot }); // the first screen without Ollama

      // A message sent all the same fails, and the conversation it opens
      // shows the banner in place of the first screen.
      await send(page, 'hello');
      await until(() => settled(page), 'the failed reply');
      await first.waitFor({ state: 'detached' });
      const banner = $(page, 'banner');
      await banner.waitFor({ timeout: WAIT_MS });
      const text = (await banner.textContent()).replace(/\s+/g, ' ');
      assert(text.includes(bad.name) && text.includes(bad.detail), `failing check in banner, got "${text}"`);
      assert(text.includes(bad.hint), `the window's hint in banner, got "${text}"`);
      assert(!text.includes('--ollama-host'), `no flags in the banner, got "${text}"`);
      assert(await $(page, 'banner-recheck').isVisible(), 'the banner offers Check again');
      for (const c of passing) assert(!text.includes(c.detail), `passing checks are not listed, got "${text}"`);
      assert(await $(page, 'composer').isEditable(), 'the chat still works');
      const snap = await until(async () => probe()?.banner, 'the banner in the probe');
      assert(snap.includes('Quire notices on its own'), `probe banner, got ${snap}`);
      await $(page, 'banner-dismiss').click();
      await banner.waitFor({ state: 'detached' });
      assert(await $(page, 'composer').isVisible(), 'the chat is still there after dismissing');
      await until(async () => probe()?.banner === null, 'no banner in the probe after dismissing');
    },
  },

  {
    name: 'a new user with Ollama and no model downloads one in one click, sees its progress, and chats',
    slug: 'first-run-download',
    async run({ page, shot }) {
      const base = FIRST;
      await open(page, base);
      const first = $(page, 'first-run');
      await first.waitFor({ timeout: WAIT_MS });
      await until(async () => (await first.getAttribute('data-state')) === 'download', 'the download screen');
      const button = $(page, 'download-model');
      await button.waitFor({ timeout: WAIT_MS });
      const label = (await button.textContent()).trim();
      assert(label === 'Download qwen3:4b (2.5 GB)', `one click, with the size, got "${label}"`);
      await button.click();
      // The progress, in the window, between nothing and all.
      const partway = await until(async () => {
        const v = Number(await $(page, 'download-progress').getAttribute('aria-valuenow', { timeout: 200 }).catch(() => NaN));
        return v > 0 && v < 100 ? v : null;
      }, 'a progress bar part way');
      const status = (await $(page, 'download-status').textContent()).replace(/\s+/g, ' ');
      assert(/Downloading qwen3:4b: .* of .* \(\d+%\)/.test(status), `bytes done of the total, got "${status}" at ${partway}%`);
      await page.screenshot({ path: shot });
      // Go checks again on its own when the pull ends: the chat is ready.
      await first.waitFor({ state: 'detached', timeout: WAIT_MS });
      assert((await $(page, 'banner').count()) === 0, 'no banner once the model is there');
      await send(page, 'hello after the download');
      await until(() => settled(page), 'the reply');
      const got = await messages(page);
      assert(JSON.stringify(got) === JSON.stringify([{ role: 'user', text: 'hello after the download' }, { role: 'assistant', text: 'You said: hello after the download' }]), `the chat, got ${JSON.stringify(got)}`);
      // The meter shows how full the context is.
      const meter = (await $(page, 'context-label').textContent()).trim();
      assert(/^[\d,]+ of 8,192 tokens$/.test(meter), `the context meter against the run's num_ctx, got "${meter}"`);
    },
  },

  {
    name: 'a user pulls another model with its progress in the window, picks it in Settings, and chats with it',
    slug: 'settings-pull-chat',
    async run({ page, shot }) {
      // The new user's backend, after the first run downloaded qwen3:4b.
      const base = FIRST;
      const second = FX.second;
      await open(page, base);
      await $(page, 'models-open').click();
      await $(page, 'models-panel').waitFor({ timeout: WAIT_MS });
      await page.locator('[data-testid="model-row"][data-name="qwen3:4b"]').waitFor({ timeout: WAIT_MS }); // the panel has loaded
      // Every state the page shows is recorded, so the pull's progress is seen.
      await recordPulls(page);
      await $(page, 'pull-name').fill(second);
      await $(page, 'pull-start').click();
      await page.locator(`[data-testid="model-row"][data-name="${second}"]`).waitFor({ timeout: WAIT_MS });
      const states = await page.evaluate(() => window.__pullStates);
      assert(states.some((x) => /^running:([1-9]|[1-9]\d)$/.test(x)), `the pull showed its bar part way: ${JSON.stringify(states.slice(0, 30))}`);
      await $(page, 'models-close').click();

      // Settings: the pulled model is offered, chosen and saved.
      await page.keyboard.press('Control+,');
      await $(page, 'settings-panel').waitFor({ timeout: WAIT_MS });
      const offered = await page.$$eval('#s-model-list option', (os) => os.map((o) => o.value));
      assert(offered.includes(second), `the installed models offered, got ${JSON.stringify(offered)}`);
      await $(page, 'settings-model').fill(second);
      await $(page, 'settings-save').click();
      await $(page, 'settings-saved').waitFor({ timeout: WAIT_MS });
      await page.screenshot({ path: shot });
      await $(page, 'settings-close').click();
      await $(page, 'settings-panel').waitFor({ state: 'detached' });
      assert((await $(page, 'banner').count()) === 0 && (await $(page, 'first-run').count()) === 0, 'the chosen model can be used: no banner');

      await newChat(page);
      await send(page, 'hello from the second model');
      await until(() => settled(page), 'the reply');
      const got = await messages(page);
      assert(got.at(-1)?.text === 'You said: hello from the second model', `the reply, got ${JSON.stringify(got)}`);
      const log = await activeLog(page, base);
      const opened = log.find((e) => e.type === 'input.received');
      const replied = log.filter((e) => e.type === 'assistant.message').at(-1);
      assert(opened?.payload?.caps?.model === second && replied?.payload?.model === second, `the run used ${second}: caps ${opened?.payload?.caps?.model}, reply ${replied?.payload?.model}`);
    },
  },

  {
    name: 'reload the page and the conversation is still there',
    slug: 'reload',
    async run({ page, base }) {
      await open(page, base);
      await newChat(page);
      await send(page, 'remember this');
      await until(() => settled(page), 'the reply to settle');
      const before = await messages(page);
      assert(JSON.stringify(before) === JSON.stringify([{ role: 'user', text: 'remember this' }, { role: 'assistant', text: 'You said: remember this' }]), `before reload, got ${JSON.stringify(before)}`);
      const active = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');

      await page.reload();
      await $(page, 'composer').waitFor();
      await until(async () => {
        const now = await messages(page);
        if (JSON.stringify(now) === JSON.stringify(before)) return true;
        throw new Error(`before ${JSON.stringify(before)} now ${JSON.stringify(now)}`);
      }, 'the same conversation after reload');
      const after = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
      assert(after === active, 'the newest session is selected after reload');
      await until(() => composerFocused(page), 'composer focus after reload');
    },
  },

  {
    name: 'a run that finishes with an error shows the error sentence',
    slug: 'run-error',
    // The fake Ollama's runner dies after one chunk of this reply.
    async run({ page, base }) {
      await open(page, base);
      await newChat(page);
      await send(page, P.fail);
      const err = await until(async () => (await messages(page)).find((m) => m.role === 'error'), 'an error item');
      // The sentence is shown word for word: the one in the run.finished event.
      const log = await activeLog(page, base);
      const finished = log.filter((e) => e.type === 'run.finished').at(-1);
      assert(finished?.payload?.reason === 'error' && finished.payload.error, `the log ends the run with an error, got ${JSON.stringify(finished)}`);
      assert(err.text === finished.payload.error, `the sentence from Go, got "${err.text}"`);
      const msgs = await messages(page);
      assert(msgs.at(-1).role === 'error' && msgs[0].role === 'user', `user ... error, got ${JSON.stringify(msgs)}`);
      const color = await page.locator('[data-role="error"]').last().evaluate((el) => getComputedStyle(el).color);
      const [r, g, b] = color.match(/\d+/g).map(Number);
      assert(r > 150 && g < 100 && b < 100, `error text is red, got ${color}`);
      await until(async () => (await $(page, 'stop').count()) === 0, 'no Stop after the run ended');
    },
  },

  {
    name: 'Stop cancels a running reply',
    slug: 'stop',
    // The fake model streams this reply, "1 2 … 60", a word every 150 ms.
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await send(page, P.slow);
      await $(page, 'stop').waitFor({ timeout: WAIT_MS });
      await until(async () => (await messages(page)).find((m) => m.role === 'assistant' && m.text.length > 8), 'some streamed text');
      assert((await page.locator('[data-role="assistant"].streaming').count()) === 1, 'the caret while streaming');
      await page.screenshot({ path: shot.replace(/\.png$/, '-streaming.png') });
      await $(page, 'stop').click();
      await until(async () => (await $(page, 'stop').count()) === 0, 'Stop to go away');
      await until(
        async () => (await page.locator('[data-role="assistant"] .stopped, [data-role="notice"]').count()) === 1,
        'the reply marked Stopped',
      );
      await until(() => composerFocused(page), 'the composer to have focus again after Stop');
      assert((await page.locator('[data-role="assistant"].streaming').count()) === 0, 'no caret after stopping');
      const text = (await messages(page)).find((m) => m.role === 'assistant').text;
      const full = Array.from({ length: 60 }, (_, i) => i + 1).join(' ');
      assert(text.length > 8 && full.startsWith(text) && text !== full, `a partial reply, got "${text}"`);
      const log = await activeLog(page, base);
      assert(log.filter((e) => e.type === 'run.finished').at(-1)?.payload?.reason === 'cancelled', 'the run finished cancelled');
    },
  },

  {
    name: 'inside Wails: bindings and runtime events are used, not HTTP',
    slug: 'wails',
    async run({ page, context, base }) {
      await context.addInitScript(fakeWails, { speaks: VERSION });
      const apiCalls = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/')) apiCalls.push(r.url());
      });
      await open(page, base);
      await send(page, 'hi from the window');
      await until(
        async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === 'Wails says: hi from the window'),
        'the reply over runtime events',
      );
      const titles = await sessionTitles(page);
      assert(titles[0] === 'hi from the window', `a session titled from the message, got ${JSON.stringify(titles)}`);
      assert((await page.evaluate(() => window.__max)) === -1, 'EventsOnMultiple with -1');
      const last = await until(async () => {
        const p = await page.evaluate(() => window.__probe.at(-1));
        return p && !p.streaming && p.messages.length === 2 && p;
      }, 'ReportView with the final picture');
      assert(last.messages[1].text === 'Wails says: hi from the window', `probe, got ${JSON.stringify(last)}`);
      assert(apiCalls.length === 0, `no HTTP API calls inside Wails, got ${apiCalls.join(', ')}`);

      // The handshake came once, before every method that needs it (Doctor,
      // NotesFolder and the probe may go first), and the fake App refused nothing.
      const { calls, refused, handshakes, keys } = await page.evaluate(() => ({
        calls: window.__calls,
        refused: window.__refused,
        handshakes: window.__handshakes,
        keys: window.__keys,
      }));
      const ungated = ['Doctor', 'ReportView', 'NotesFolder', 'ChooseNotesFolder'];
      const gated = calls.filter((c) => !ungated.includes(c));
      assert(gated[0] === 'Handshake', `Handshake first, got ${JSON.stringify(calls)}`);
      assert(gated.filter((c) => c === 'Handshake').length === 1, `one Handshake, got ${JSON.stringify(calls)}`);
      assert(JSON.stringify(handshakes) === JSON.stringify([VERSION]), `Handshake("${VERSION}"), got ${JSON.stringify(handshakes)}`);
      assert(refused.length === 0, `no call refused, got ${JSON.stringify(refused)}`);
      // Send got the message's idempotency key (crypto.randomUUID here).
      assert(keys.length === 1 && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(keys[0]), `Send with a key, got ${JSON.stringify(keys)}`);

      // A second message gets a key of its own.
      await send(page, 'and again');
      await until(
        async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === 'Wails says: and again'),
        'the second reply',
      );
      const keys2 = await page.evaluate(() => window.__keys);
      assert(keys2.length === 2 && keys2[1] !== keys2[0], `two messages, two keys, got ${JSON.stringify(keys2)}`);
    },
  },

  {
    name: 'inside Wails: a refused handshake is said in a sentence, and Doctor still runs',
    slug: 'wails-handshake-refused',
    async run({ page, context, base }) {
      // This window's Quire speaks 2.0: Handshake("1.0") is refused.
      await context.addInitScript(fakeWails, { speaks: '2.0' });
      await open(page, base);
      const strip = await until(async () => {
        const el = $(page, 'error-strip');
        return (await el.count()) === 1 && (await el.textContent());
      }, 'the error strip');
      assert(
        strip.includes('Could not load your chats: incompatible protocol version: this Quire speaks 2.0, the other side 1.0; update the older one'),
        `the handshake's sentence, got "${strip}"`,
      );
      const { calls, refused } = await page.evaluate(() => ({ calls: window.__calls, refused: window.__refused }));
      assert(calls.includes('Doctor'), `Doctor ran, got ${JSON.stringify(calls)}`);
      assert(calls.filter((c) => c === 'Handshake').length === 1, `one Handshake, got ${JSON.stringify(calls)}`);
      assert(JSON.stringify(refused) === JSON.stringify(['Handshake']), `only the Handshake was refused, got ${JSON.stringify(refused)}`);

      // Sending says the same sentence and calls nothing else.
      await send(page, 'hello?');
      await until(async () => ((await $(page, 'error-strip').textContent()) ?? '').includes('Could not send: incompatible protocol version'), 'the send refused');
      const after = await page.evaluate(() => window.__calls);
      assert(
        !after.some((c) => !['Doctor', 'ReportView', 'Handshake', 'NotesFolder'].includes(c)),
        `nothing but Doctor, the notes folder and the probe was called, got ${JSON.stringify(after)}`,
      );
      // The probe still works, so a test can see what the user sees.
      await until(async () => (await page.evaluate(() => window.__probe.length)) > 0, 'a ReportView');
    },
  },

  {
    name: 'the API insists on the protocol version and on idempotency keys',
    slug: 'protocol',
    async run({ page, base }) {
      // Every request the page makes carries the version: header, or ?protocol= on the stream.
      const unversioned = [];
      const seen = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (!u.pathname.startsWith('/api/')) return;
        seen.push(`${r.method()} ${u.pathname}`);
        const stream = ['/api/stream', '/api/documents/stream', '/api/questions/stream', '/api/health/stream', '/api/models/pull/stream'].includes(u.pathname); // EventSource: no headers
        const ok = stream ? u.searchParams.get('protocol') === VERSION : r.headers()['quire-protocol'] === VERSION;
        if (!ok) unversioned.push(`${r.method()} ${u.pathname}${u.search}`);
      });
      await open(page, base);
      await newChat(page);
      await send(page, 'versioned');
      await until(() => settled(page), 'the reply to settle');
      assert(seen.includes('GET /api/stream') && seen.includes('POST /api/sessions'), `the page used the API, got ${JSON.stringify(seen)}`);
      assert(unversioned.length === 0, `requests without the protocol version: ${unversioned.join(', ')}`);

      // Without a compatible version: 426 with a sentence, everywhere under /api/.
      const auth = { Authorization: `Bearer ${secretOf(base)}` };
      for (const [what, path, headers] of [
        ['no header', '/api/sessions', {}],
        ['a 2.0 client', '/api/sessions', { 'Quire-Protocol': '2.0' }],
        ['the stream without ?protocol=', '/api/stream', {}],
        ['an unknown route', '/api/nope', {}],
      ]) {
        const r = await fetch(base + path, { headers: { ...auth, ...headers } });
        const body = await r.json().catch(() => null);
        assert(r.status === 426 && /incompatible protocol version/.test(body?.error), `${what}: 426, got ${r.status} ${JSON.stringify(body)}`);
      }
      const hs = await fetch(`${base}/api/handshake?version=${VERSION}`, { headers: auth });
      assert(hs.status === 200 && (await hs.json()).version.split('.')[0] === VERSION.split('.')[0], `handshake ${VERSION}: 200, got ${hs.status}`);
      const old = await fetch(`${base}/api/handshake?version=2.0`, { headers: auth });
      assert(old.status === 426 && /incompatible protocol version/.test((await old.json()).error), `handshake 2.0: 426, got ${old.status}`);

      // Idempotency-Key: the same key and text again is the same run, once;
      // the same key for another message is 422.
      const post = (path, body, key) =>
        api(base, path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify(body) });
      const a = await (await api(base, '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'keys a' }) })).json();
      const b = await (await api(base, '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'keys b' }) })).json();
      const key = `e2e-${Date.now()}-${Math.random().toString(16).slice(2)}`;
      const first = await post(`/api/sessions/${encodeURIComponent(a.id)}/messages`, { text: 'only once' }, key);
      const second = await post(`/api/sessions/${encodeURIComponent(a.id)}/messages`, { text: 'only once' }, key);
      assert(first.status === 202 && second.status === 202, `202 twice, got ${first.status}, ${second.status}`);
      const [r1, r2] = [await first.json(), await second.json()];
      assert(r1.runId && r1.runId === r2.runId, `the same run id, got ${JSON.stringify([r1, r2])}`);
      // b is idle, so this is the key's conflict and not a busy chat.
      const other = await post(`/api/sessions/${encodeURIComponent(b.id)}/messages`, { text: 'something else' }, key);
      const otherBody = await other.json();
      assert(other.status === 422 && /idempotency key/.test(otherBody.error), `another message under the key: 422, got ${other.status} ${JSON.stringify(otherBody)}`);
      const log = await (await api(base, `/api/sessions/${encodeURIComponent(a.id)}/events?from=0`)).json();
      const users = log.filter((e) => e.type === 'user.message');
      assert(users.length === 1, `one user.message, got ${users.length}`);
      const bLog = await (await api(base, `/api/sessions/${encodeURIComponent(b.id)}/events?from=0`)).json();
      assert(!bLog.some((e) => e.type === 'user.message'), 'nothing posted to the other chat');
    },
  },

  {
    name: 'a send whose answer is lost is retried with the same key and posted once',
    slug: 'send-retry',
    async run({ page, base, shot }) {
      const attempts = [];
      let cut = false;
      await page.route('**/api/sessions/*/messages', async (route) => {
        const req = route.request();
        attempts.push({ key: req.headers()['idempotency-key'], body: req.postData() });
        if (!cut) {
          // The request reaches Quire and is carried out; its answer never comes back.
          cut = true;
          const res = await route.fetch();
          attempts.at(-1).answer = { status: res.status(), body: await res.text() };
          return route.abort('connectionreset');
        }
        const res = await route.fetch();
        attempts.at(-1).answer = { status: res.status(), body: await res.text() };
        return route.fulfill({ response: res, body: attempts.at(-1).answer.body });
      });
      await open(page, base);
      await newChat(page);
      await send(page, 'flaky network');
      await until(() => settled(page), 'the reply to settle');
      await page.screenshot({ path: shot });

      assert(attempts.length === 2, `two attempts, got ${JSON.stringify(attempts)}`);
      const [a, b] = attempts;
      assert(a.key && a.key === b.key, `the same Idempotency-Key, got ${JSON.stringify(attempts.map((x) => x.key))}`);
      assert(a.body === b.body, 'the same body');
      assert(a.answer.status === 202 && b.answer.status === 202, `202 both times, got ${a.answer.status}, ${b.answer.status}`);
      assert(JSON.parse(a.answer.body).runId === JSON.parse(b.answer.body).runId, `the same run, got ${a.answer.body} and ${b.answer.body}`);
      assert((await $(page, 'error-strip').count()) === 0, 'no error shown');

      const users = (await messages(page)).filter((m) => m.role === 'user');
      assert(users.length === 1 && users[0].text === 'flaky network', `one user message on screen, got ${JSON.stringify(users)}`);
      const id = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
      const log = await (await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=0`)).json();
      assert(log.filter((e) => e.type === 'user.message').length === 1, 'one user.message in the log');
      assert(log.filter((e) => e.type === 'run.started').length === 1, 'one run');
      const msgs = await messages(page);
      assert(msgs.at(-1).text === 'You said: flaky network', `the reply, got ${JSON.stringify(msgs)}`);
    },
  },

  {
    name: 'a tool call shows as a card: name, arguments, status, duration and result',
    slug: 'tool-card',
    // The fake model calls two slow tools (browser_test.go slowPair): search_garden ends first.
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await send(page, P.tool);
      // While the tools run: one card per call, in call order, under the step that made them.
      await until(async () => (await toolCards(page)).map((c) => c.status).join() === 'running,running', 'two running cards');
      let cards = await toolCards(page);
      assert(cards.map((c) => c.name).join() === 'read_file,search_garden', `call order, got ${JSON.stringify(cards)}`);
      assert(cards[0].chip === 'running…', `a running chip, got ${cards[0].chip}`);
      assert(cards[0].summary === 'notes/garden.md' && cards[1].summary === 'query: tomatoes · limit: 5', `summaries, got ${JSON.stringify(cards)}`);
      assert((await $(page, 'tool-step').count()) === 1, 'the tool-only step is one tool step, not an empty message');
      // The second call finishes first; the cards keep the call order.
      await until(async () => (await toolCards(page)).map((c) => c.status).join() === 'running,done', 'the second call done first');
      await until(async () => (await toolCards(page)).map((c) => c.status).join() === 'done,done', 'both calls done');
      cards = await toolCards(page);
      assert(cards.map((c) => c.name).join() === 'read_file,search_garden', `still in call order, got ${JSON.stringify(cards)}`);
      assert(cards[0].chip === 'done' && /^\d\.\d s$/.test(cards[0].duration), `done with a duration, got ${JSON.stringify(cards[0])}`);
      // The result shows its first lines; the rest on demand.
      const log = await activeLog(page, base);
      const read = log.find((e) => e.type === 'tool.result' && e.payload.name === 'read_file').payload;
      const lines = read.content.split('\n');
      assert(lines.length > 6, `a result longer than a card shows, got ${JSON.stringify(read)}`);
      assert(cards[0].result === lines.slice(0, 6).join('\n'), `the first lines of the result, got ${JSON.stringify(cards[0].result)}`);
      const toggle = page.locator('[data-testid="tool-card"]').first().locator('[data-testid="tool-result-toggle"]');
      assert((await toggle.textContent()).trim() === `Show all ${lines.length} lines`, 'a Show all button');
      // The arguments, pretty-printed, behind a disclosure.
      const args = page.locator('[data-testid="tool-card"]').nth(1).locator('details.args');
      await args.locator('summary').click();
      const pretty = await args.locator('[data-testid="tool-args"]').textContent();
      assert(pretty === '{\n  "query": "tomatoes",\n  "limit": 5\n}', `pretty arguments, got ${JSON.stringify(pretty)}`);
      await until(() => settled(page), 'the final reply');
      assert(
        JSON.stringify(await timeline(page)) === JSON.stringify([`user:${P.tool}`, 'tools:read_file,search_garden', 'assistant:Your notes say to water the tomatoes daily.']),
        `the timeline, got ${JSON.stringify(await timeline(page))}`,
      );
      await page.screenshot({ path: shot });
      await toggle.click();
      assert((await toolCards(page))[0].result === read.content, 'Show all shows the whole result');

      // A replayed log renders the same cards.
      const live = (await toolCards(page)).map(({ name, status, chip, summary, duration }) => ({ name, status, chip, summary, duration }));
      await page.reload();
      await $(page, 'composer').waitFor();
      await until(async () => (await toolCards(page)).length === 2, 'the cards after reload');
      const replayed = (await toolCards(page)).map(({ name, status, chip, summary, duration }) => ({ name, status, chip, summary, duration }));
      assert(JSON.stringify(replayed) === JSON.stringify(live), `the same cards after reload, got ${JSON.stringify(replayed)} vs ${JSON.stringify(live)}`);
    },
  },

  {
    name: "a permission question: Don't allow with a reason shows the refusal with the reason",
    slug: 'permission-deny',
    // The fake model calls create_note, a note tool that writes: Quire asks first.
    async run({ page, base, shot }) {
      const answers = recordPosts(page, /\/answer$/);
      await useNotes(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.ask);
      const card = page.locator('[data-testid="permission"][data-state="open"]');
      await card.waitFor({ timeout: WAIT_MS });
      assert((await card.locator('h3').textContent()).trim() === 'Allow Quire to run create_note?', 'the question names the tool');
      // What the write would do, whole, as Go describes it (the window's
      // card shows the same): every line it would write.
      const desc = card.locator('[data-testid="permission-description"]');
      await desc.waitFor({ timeout: WAIT_MS });
      const said = await desc.innerText();
      assert(said.startsWith('Create todo.md:') && FX.todo.split('\n').every((l) => said.includes(`+ ${l}`)), `every line it writes, got ${JSON.stringify(said)}`);
      assert((await $(page, 'permission-reason').getAttribute('placeholder')) === 'Tell the assistant why (optional)', 'the reason field');
      const cards = await toolCards(page);
      assert(cards.length === 1 && cards[0].status === 'asking', `the call waits for the user, got ${JSON.stringify(cards)}`);
      await until(async () => (await page.locator('.working').count()) === 0, 'no working dots while asking');
      // The sidebar says the chat waits for an answer. Read after a reload:
      // the list Go sends live with permission.requested is made before the
      // session's model moves on (kernel/runtime Subscribe), so it can still
      // say "streaming" until the next change.
      await page.reload();
      await card.waitFor({ timeout: WAIT_MS });
      await until(async () => (await $(page, 'session-asking').count()) === 1, 'the sidebar says the chat waits for an answer');
      await page.screenshot({ path: shot });

      await $(page, 'permission-reason').fill('not today, thanks');
      await $(page, 'permission-deny').click();
      const record = $(page, 'permission-record');
      await record.waitFor({ timeout: WAIT_MS });
      assert((await record.textContent()).trim() === 'Not allowed — not today, thanks', `the record, got "${await record.textContent()}"`);
      await until(async () => (await toolCards(page))[0]?.status === 'denied', 'the call denied');
      const denied = (await toolCards(page))[0];
      assert(denied.chip === 'denied' && denied.result.includes("The user's reason: not today, thanks"), `the refusal with the reason, got ${JSON.stringify(denied)}`);
      assert(JSON.stringify(answers) === JSON.stringify([{ callIds: [answers[0]?.callIds?.[0]], allowed: false, feedback: 'not today, thanks' }]) && answers[0].callIds[0], `one answer, got ${JSON.stringify(answers)}`);
      await until(() => settled(page), 'the final reply');
      const t = await timeline(page);
      assert(
        JSON.stringify(t) === JSON.stringify([`user:${P.ask}`, 'assistant:I will add these to your to-do list.', 'permission:closed', 'assistant:All right, I left todo.md alone.']),
        `the timeline, got ${JSON.stringify(t)}`,
      );
      assert(!existsSync(join(FX.notesDir, 'todo.md')), 'nothing was written');
      await page.screenshot({ path: shot.replace(/\.png$/, '-answered.png') });
    },
  },

  {
    name: 'a permission question: Allow runs the call (and a refused answer says so)',
    slug: 'permission-allow',
    async run({ page, base }) {
      const answers = recordPosts(page, /\/answer$/);
      await useNotes(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.ask);
      await page.locator('[data-testid="permission"][data-state="open"]').waitFor({ timeout: WAIT_MS });
      // An answer Quire refuses (409: not about the calls asked, as when the
      // question closed meanwhile) shows Go's sentence, word for word: the
      // first answer reaches Quire about another call.
      const id = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
      const probeAnswer = await api(base, `/api/sessions/${encodeURIComponent(id)}/answer`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ callIds: ['call_not_asked'], allowed: true }),
      });
      const notAsked = (await probeAnswer.json()).error;
      assert(probeAnswer.status === 409 && notAsked, `an answer about another call: 409, got ${probeAnswer.status} ${notAsked}`);
      let tampered = false;
      await page.route('**/api/sessions/*/answer', (route) => {
        if (tampered) return route.continue();
        tampered = true;
        return route.continue({ postData: JSON.stringify({ ...JSON.parse(route.request().postData()), callIds: ['call_not_asked'] }) });
      });
      await $(page, 'permission-allow').click();
      const err = $(page, 'permission-error');
      await err.waitFor({ timeout: WAIT_MS });
      assert((await err.textContent()).trim() === notAsked, `the 409 sentence, got "${await err.textContent()}"`);
      assert((await page.locator('[data-testid="permission"][data-state="open"]').count()) === 1, 'the question is still open');

      await $(page, 'permission-allow').click();
      const record = $(page, 'permission-record');
      await record.waitFor({ timeout: WAIT_MS });
      assert((await record.textContent()).trim() === 'Allowed', `the record, got "${await record.textContent()}"`);
      await until(async () => (await toolCards(page))[0]?.status === 'done', 'the call ran');
      await until(() => settled(page), 'the final reply');
      const created = (await activeLog(page, base)).find((e) => e.type === 'tool.result' && e.payload.name === 'create_note').payload;
      const done = (await toolCards(page))[0];
      assert(created.status === 'success' && /todo\.md/.test(created.content), `create_note made todo.md, got ${JSON.stringify(created)}`);
      assert(done.summary === 'Created todo.md', `the card says what changed, got ${JSON.stringify(done)}`);
      assert(readFileSync(join(FX.notesDir, 'todo.md'), 'utf8').includes(FX.todo), 'the note is written');
      const msgs = await messages(page);
      assert(msgs.at(-1).text === 'Done: todo.md has your three items.', `the final reply, got ${JSON.stringify(msgs)}`);
      assert(answers.length === 2 && answers.every((a) => a.allowed === true && a.feedback === '' && a.callIds.length === 1), `two tries, the same answer, got ${JSON.stringify(answers)}`);
    },
  },

  {
    name: 'a steer sent during a run shows as pending, then lands before the final reply',
    slug: 'steer',
    async run({ page, base, shot }) {
      const sends = recordPosts(page, /\/messages$/);
      await open(page, base);
      await newChat(page);
      await send(page, P.tool);
      await until(async () => (await toolCards(page)).some((c) => c.status === 'running'), 'a running tool');
      await $(page, 'send-steer').waitFor();
      await $(page, 'send-queue').waitFor();
      assert((await $(page, 'send-steer').textContent()).trim() === 'Add to current request', 'the steer button');
      assert((await $(page, 'send-queue').textContent()).trim() === 'Queue as next request', 'the queue button');
      // Enter while running adds to the current request.
      await send(page, 'only this week');
      const pending = $(page, 'pending-input');
      await pending.waitFor({ timeout: WAIT_MS });
      assert((await pending.getAttribute('data-intent')) === 'steer', 'a pending steer');
      assert((await pending.textContent()).includes('Will be added to the current request'), `its label, got "${await pending.textContent()}"`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-pending.png') });
      await pending.waitFor({ state: 'detached', timeout: WAIT_MS });
      await until(() => settled(page), 'the final reply');
      const t = await timeline(page);
      assert(
        JSON.stringify(t) ===
          JSON.stringify([`user:${P.tool}`, 'tools:read_file,search_garden', 'user:only this week', 'assistant:Noted: only this week. Your notes say to water the tomatoes daily.']),
        `the steer lands before the final reply, got ${JSON.stringify(t)}`,
      );
      assert(sends.map((b) => b.intent).join() === 'follow_up,steer', `intents sent, got ${JSON.stringify(sends)}`);
      assert((await $(page, 'send').count()) === 1 && (await $(page, 'send-steer').count()) === 0, 'one Send button again when idle');
      const runs = (await activeLog(page, base)).filter((e) => e.type === 'run.started');
      assert(runs.length === 1, `the steer joined the run, got ${runs.length} runs`);
    },
  },

  {
    name: 'a queued follow-up waits for the current request, then runs',
    slug: 'queue',
    async run({ page, base, shot }) {
      const sends = recordPosts(page, /\/messages$/);
      await open(page, base);
      await newChat(page);
      await send(page, P.tool);
      await until(async () => (await toolCards(page)).some((c) => c.status === 'running'), 'a running tool');
      await $(page, 'composer').fill('and then the roses?');
      await $(page, 'send-queue').click();
      const pending = $(page, 'pending-input');
      await pending.waitFor({ timeout: WAIT_MS });
      assert((await pending.getAttribute('data-intent')) === 'follow_up', 'a pending follow-up');
      assert((await pending.textContent()).includes('Queued: runs after the current request'), `its label, got "${await pending.textContent()}"`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-pending.png') });
      // It stays below while the first request finishes its steps.
      await until(async () => (await messages(page)).some((m) => m.text === 'Your notes say to water the tomatoes daily.'), 'the first reply');
      await until(async () => (await messages(page)).some((m) => m.text === 'You said: and then the roses?'), 'the follow-up answered');
      await until(() => settled(page), 'everything settled');
      const t = await timeline(page);
      assert(
        JSON.stringify(t) ===
          JSON.stringify([
            `user:${P.tool}`,
            'tools:read_file,search_garden',
            'assistant:Your notes say to water the tomatoes daily.',
            'user:and then the roses?',
            'assistant:You said: and then the roses?',
          ]),
        `the follow-up runs after, got ${JSON.stringify(t)}`,
      );
      assert(sends.map((b) => b.intent).join() === 'follow_up,follow_up', `intents sent, got ${JSON.stringify(sends)}`);
      const runs = (await activeLog(page, base)).filter((e) => e.type === 'run.started');
      assert(runs.length === 2, `the follow-up ran on its own, got ${runs.length} runs`);
    },
  },

  {
    name: 'inside Wails: a question is answered in the dialog window, and a steer uses SendWith',
    slug: 'wails-permission',
    async run({ page, context, base, shot }) {
      await context.addInitScript(fakeWails, { speaks: VERSION });
      const apiCalls = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/')) apiCalls.push(r.url());
      });
      await open(page, base);
      await send(page, '/ask tidy my list');
      const card = page.locator('[data-testid="permission"][data-state="open"]');
      await card.waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'permission-dialog-note').textContent()).trim() === 'Answer in the dialog window', 'the dialog note');
      assert((await $(page, 'permission-allow').count()) === 0 && (await $(page, 'permission-deny').count()) === 0, 'no buttons in the window');
      assert((await card.locator('[data-testid="permission-args"]').innerText()).includes('Buy seeds'), 'the arguments are shown');
      await page.screenshot({ path: shot });
      await send(page, 'hurry');
      await until(async () => (await messages(page)).some((m) => m.text === 'Done, and noted: hurry'), 'the run after the dialog');
      assert((await $(page, 'permission-record').textContent()).trim() === 'Allowed', 'the record');
      const { sendWith, calls } = await page.evaluate(() => ({ sendWith: window.__sendWith, calls: window.__calls }));
      assert(sendWith.length === 1 && sendWith[0][1] === 'hurry' && sendWith[0][2] === 'steer', `SendWith(id, text, "steer", key), got ${JSON.stringify(sendWith)}`);
      assert(calls.filter((c) => c === 'Send').length === 1, `Send once (the first message), got ${JSON.stringify(calls)}`);
      assert(apiCalls.length === 0, `no HTTP API calls inside Wails, got ${apiCalls.join(', ')}`);
    },
  },
  {
    name: 'the notes folder: the first-run hint, then a path set in the browser (an error, then a folder)',
    slug: 'notes-folder',
    async run({ page, base, shot }) {
      await useNotes(base, ''); // other cases chose one
      const puts = [];
      const answers = [];
      page.on('request', (r) => {
        if (r.method() === 'PUT' && new URL(r.url()).pathname === '/api/settings') {
          puts.push({ body: JSON.parse(r.postData() ?? 'null'), protocol: r.headers()['quire-protocol'] });
        }
      });
      page.on('response', async (r) => {
        if (r.request().method() === 'PUT' && new URL(r.url()).pathname === '/api/settings') answers.push({ status: r.status(), body: await r.json() });
      });
      await open(page, base);
      const hint = $(page, 'notes-hint');
      await hint.waitFor({ timeout: WAIT_MS });
      assert((await hint.locator('p').first().textContent()).trim() === HINT, `the hint's words, got "${await hint.textContent()}"`);
      let row = await notesRow(page);
      assert(row.name === 'Not chosen yet' && row.button === 'Choose…', `the row before, got ${JSON.stringify(row)}`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-hint.png') });

      // In a browser, Choose… opens a path field (no folder dialog).
      await $(page, 'notes-hint-choose').click();
      const input = hint.locator('[data-testid="notes-folder-input"]');
      await input.waitFor();
      assert(await input.evaluate((el) => document.activeElement === el), 'the path field has focus');
      await input.fill('notes');
      await hint.locator('[data-testid="notes-folder-save"]').click();
      const err = hint.locator('[data-testid="notes-folder-error"]');
      await err.waitFor({ timeout: WAIT_MS });
      await until(() => answers.length === 1, 'the answer to the first PUT');
      assert(answers[0].status === 400 && answers[0].body.error.startsWith('the notes folder must be given as a full path'), `Quire refuses a relative folder (a host has no working folder the user could mean), got ${JSON.stringify(answers[0])}`);
      assert((await err.textContent()).trim() === answers[0].body.error, `Quire's 400 sentence word for word, got "${await err.textContent()}"`);
      assert((await notesRow(page)).name === 'Not chosen yet', 'nothing chosen after the error');
      await page.screenshot({ path: shot.replace(/\.png$/, '-error.png') });

      await input.fill(FX.notesDir);
      await input.press('Enter');
      await hint.waitFor({ state: 'detached', timeout: WAIT_MS });
      row = await until(async () => {
        const r = await notesRow(page);
        return r.name === basename(FX.notesDir) && r;
      }, 'the folder in the sidebar');
      assert(row.title === FX.notesDir && row.button === 'Change…', `the row after, got ${JSON.stringify(row)}`);
      assert(
        JSON.stringify(puts) ===
          JSON.stringify([
            { body: { notesDir: 'notes' }, protocol: VERSION },
            { body: { notesDir: FX.notesDir }, protocol: VERSION },
          ]),
        `two PUTs with the protocol header, got ${JSON.stringify(puts)}`,
      );
      const saved = await (await api(base, '/api/settings')).json();
      assert(saved.notesDir === FX.notesDir, `saved, got ${JSON.stringify(saved)}`);

      // Change… in the sidebar starts from the folder chosen now; Escape closes it.
      await $(page, 'notes-folder-choose').click();
      const side = page.locator('[data-testid="notes-folder"] [data-testid="notes-folder-input"]');
      await side.waitFor();
      assert((await side.inputValue()) === FX.notesDir, `prefilled, got "${await side.inputValue()}"`);
      await side.fill(join(FX.notesDir, 'missing'));
      await side.press('Enter');
      const sideErr = page.locator('[data-testid="notes-folder"] [data-testid="notes-folder-error"]');
      await sideErr.waitFor({ timeout: WAIT_MS });
      await until(() => answers.length === 3, 'the answer to the third PUT');
      assert(answers[2].status === 400 && (await sideErr.textContent()).trim() === answers[2].body.error, `the sentence in the sidebar too, got ${JSON.stringify(answers[2])}`);
      await page.screenshot({ path: shot });
      await side.press('Escape');
      await side.waitFor({ state: 'detached' });
      assert((await notesRow(page)).name === basename(FX.notesDir), 'still the chosen folder');
      assert((await (await api(base, '/api/settings')).json()).notesDir === FX.notesDir, 'and in Quire');

      // It is Quire's setting: a reload shows it, and no hint.
      await page.reload();
      await $(page, 'composer').waitFor();
      await until(async () => (await notesRow(page)).name === basename(FX.notesDir), 'the folder after reload');
      assert((await $(page, 'notes-hint').count()) === 0, 'no hint once a folder is chosen');

      // With no folder again, the hint comes back and can be dismissed.
      await useNotes(base, '');
      await page.reload();
      await hint.waitFor({ timeout: WAIT_MS });
      await $(page, 'notes-hint-dismiss').click();
      await hint.waitFor({ state: 'detached' });
      assert((await notesRow(page)).button === 'Choose…', 'the sidebar row stays');
    },
  },

  {
    name: 'inside Wails: the notes folder is chosen in the native dialog (a cancel changes nothing)',
    slug: 'wails-notes-folder',
    async run({ page, context, base }) {
      await context.addInitScript(fakeWails, { speaks: VERSION, notesDir: '', dialog: ['', '/Users/ann/Documents/Notes'] });
      const apiCalls = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/')) apiCalls.push(r.url());
      });
      await open(page, base);
      await $(page, 'notes-hint').waitFor({ timeout: WAIT_MS });
      await $(page, 'notes-hint-choose').click(); // the dialog is cancelled
      await until(async () => (await page.evaluate(() => window.__calls.filter((c) => c === 'ChooseNotesFolder').length)) === 1, 'the dialog');
      assert((await $(page, 'notes-folder-input').count()) === 0, 'no path field in the window');
      assert((await $(page, 'notes-hint').count()) === 1 && (await notesRow(page)).name === 'Not chosen yet', 'a cancel changes nothing');
      await $(page, 'notes-folder-choose').click(); // from the sidebar this time: a folder
      await until(async () => (await notesRow(page)).name === 'Notes', 'the chosen folder in the sidebar');
      assert((await notesRow(page)).title === '/Users/ann/Documents/Notes', 'the full path on hover');
      await $(page, 'notes-hint').waitFor({ state: 'detached', timeout: WAIT_MS });
      assert(apiCalls.length === 0, `no HTTP API calls inside Wails, got ${apiCalls.join(', ')}`);
      const refused = await page.evaluate(() => window.__refused);
      assert(refused.length === 0, `nothing refused, got ${JSON.stringify(refused)}`);
    },
  },

  {
    name: 'a plan (update_todos) is a checklist, pinned above the conversation while the request goes',
    slug: 'plan',
    // The fake model calls update_todos (FX.plan), then streams its reply
    // slowly; the plan reminder (todo.PlanReminder) then gives the run one
    // more step, in which the model leaves the open items for later.
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await send(page, P.plan);
      const card = page.locator('[data-testid="tool-card"][data-kind="checklist"]');
      await card.waitFor({ timeout: WAIT_MS });
      const panel = $(page, 'plan-panel');
      await panel.waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'plan-panel-progress').textContent()).trim() === '1 of 3 done', 'the panel says 1 of 3 done');
      const want = FX.plan.map((i) => ({ text: i.text, done: i.done, struck: i.done }));
      let items = await todoItems(panel);
      assert(JSON.stringify(items) === JSON.stringify(want), `the panel's items, got ${JSON.stringify(items)}`);
      assert(await panel.evaluate((el) => getComputedStyle(el.parentElement).position === 'sticky'), 'the panel is sticky');
      await page.screenshot({ path: shot.replace(/\.png$/, '-going.png') });

      // The card in the conversation: "Plan", 1 of 3 done, done items struck through.
      assert((await card.locator('[data-testid="plan-progress"]').textContent()).trim() === '1 of 3 done', 'the card says 1 of 3 done');
      items = await todoItems(card);
      assert(JSON.stringify(items) === JSON.stringify(want), `the card's items, got ${JSON.stringify(items)}`);
      assert((await card.locator('[data-testid="tool-result"]').count()) === 0, "the model's text is not shown");

      // Once the request is done the panel goes; the card stays.
      await until(() => settled(page), 'the final reply');
      await panel.waitFor({ state: 'detached', timeout: WAIT_MS });
      const t = await timeline(page);
      assert(
        JSON.stringify(t) ===
          JSON.stringify([
            `user:${P.plan}`,
            'tools:update_todos',
            'assistant:I have read your inbox; next I will sort the notes into project folders.',
            `user:${P.planReminder}`,
            `assistant:${P.planLater}`,
          ]),
        `the timeline, got ${JSON.stringify(t)}`,
      );
      await page.screenshot({ path: shot });

      // A replayed log renders the same checklist.
      await page.reload();
      await card.waitFor({ timeout: WAIT_MS });
      items = await todoItems(card);
      assert(JSON.stringify(items) === JSON.stringify(want), `the same items after reload, got ${JSON.stringify(items)}`);
      assert((await $(page, 'plan-panel').count()) === 0, 'no panel when nothing is going');
    },
  },

  {
    name: 'report_state is a distinct "The assistant is unsure" card',
    slug: 'unsure',
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await send(page, P.unsure);
      const card = page.locator('[data-testid="tool-card"][data-kind="unsure"]');
      await card.waitFor({ timeout: WAIT_MS });
      assert((await card.locator('[data-testid="unsure-title"]').textContent()).trim() === 'The assistant is unsure', 'the title');
      for (const k of ['state', 'plan', 'confusion']) {
        const text = (await card.locator(`[data-testid="unsure-${k}"]`).textContent()).trim();
        assert(text === FX.unsure[k], `${k}: got "${text}"`);
      }
      await until(() => settled(page), 'the final reply');
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'a moved note: the change said plainly, and Undo puts it back — Quire itself, after a yes to the move back',
    slug: 'move-undo',
    // The fake model calls move_note on the notes folder; Quire asks first, and the note moves.
    async run({ page, base, shot }) {
      const [from, to] = ['inbox/a.md', 'projects/a.md'];
      const sends = recordPosts(page, /\/messages$/);
      await useNotes(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.move);
      const ask = page.locator('[data-testid="permission"][data-state="open"]');
      await ask.waitFor({ timeout: WAIT_MS });
      assert((await ask.locator('h3').textContent()).trim() === 'Allow Quire to run move_note?', 'the move asks first');
      // The question names every link the move keeps, note by note.
      const plan = join(FX.notesDir, 'projects/plan.md');
      const planBefore = readFileSync(plan, 'utf8');
      const head = await ask.locator('[data-testid="permission-description"]').textContent();
      assert(head.includes(`Move ${from} → ${to}`) && head.includes('and updates 1 link in 1 note:'), `the question says the links it updates, got ${JSON.stringify(head)}`);
      const part = ask.locator('[data-testid="permission-note-diff"]');
      assert((await part.count()) === 1 && (await part.locator('summary').textContent()).trim() === 'projects/plan.md', 'the rewritten note is its own part');
      assert((await part.textContent()).includes('+ Start from [[a]] and [the idea](a.md).'), `the note's diff, got ${await part.textContent()}`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-question.png') });
      await $(page, 'permission-allow').click();
      const card = page.locator('[data-testid="tool-card"][data-kind="change"]').first();
      await card.waitFor({ timeout: WAIT_MS });
      await until(() => settled(page), 'the reply');
      assert(existsSync(join(FX.notesDir, to)) && !existsSync(join(FX.notesDir, from)), 'the note moved');
      assert(readFileSync(plan, 'utf8') === '# Plan\n\nStart from [[a]] and [the idea](a.md).\n', `the link kept pointing at the note, got ${JSON.stringify(readFileSync(plan, 'utf8'))}`);
      const summary = (await card.locator('[data-testid="tool-summary"]').textContent()).trim();
      assert(summary === `Moved ${from} → ${to}`, `the change said plainly, got "${summary}"`);
      assert((await card.locator('[data-testid="tool-name"]').textContent()).trim() === 'move_note', 'the tool');
      assert((await card.locator('[data-testid="tool-result"]').count()) === 0, "the model's text is not shown");
      const undo = card.locator('[data-testid="change-undo"]');
      assert((await undo.textContent()).trim() === 'Undo', 'an Undo button');
      await page.screenshot({ path: shot.replace(/\.png$/, '-before.png') });

      // Undo is Quire's own: a yes to the exact reverse, no message to the model.
      const changeId = (await activeLog(page, base)).find((e) => e.type === 'tool.result' && e.payload.name === 'move_note').payload.data.id;
      assert(/^chg_/.test(changeId), `the move's change id, got ${changeId}`);
      await undo.click();
      const detail = await $(page, 'confirm-detail').textContent();
      assert(detail.includes(`move ${to} back to ${from}`), `the question shows the move back, got ${detail}`);
      await $(page, 'confirm-delete').click();
      await until(async () => (await card.locator('[data-testid="change-undone"]').count()) === 1, 'the change marked Undone');
      assert(existsSync(join(FX.notesDir, from)) && !existsSync(join(FX.notesDir, to)), 'the note is back');
      assert(readFileSync(plan, 'utf8') === planBefore, 'the undo gave the linking note back byte for byte');

      // The Notes panel shows the note's place in the link graph: the
      // note linking to it (opened with a click), and a link of it that
      // leads nowhere once one is written by another program.
      await $(page, 'notes-open').click();
      await $(page, 'notes-panel').waitFor({ timeout: WAIT_MS });
      await $(page, 'note-folder').filter({ hasText: 'inbox' }).click();
      const backlink = page.locator('[data-testid="note-backlink"][data-path="projects/plan.md"]');
      // The index follows the folder in the background: the note is opened
      // again until its links have been read.
      await until(async () => {
        await $(page, 'note-file').filter({ hasText: 'a.md' }).click();
        await $(page, 'note-links').locator('h4, [data-testid="note-links-unindexed"], [data-testid="note-links-error"]').first().waitFor({ timeout: WAIT_MS });
        return (await backlink.count()) === 2; // [[a]] and [the idea](../inbox/a.md), both on line 3
      }, 'the backlinks from projects/plan.md');
      const linksHead = (await $(page, 'note-backlinks-head').textContent()).replace(/\s+/g, ' ').trim();
      assert(linksHead === '2 links here, from 1 note', `the links counted as links, and notes as notes, got ${JSON.stringify(linksHead)}`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-links.png') });
      await backlink.first().click();
      await until(async () => ((await $(page, 'note-preview').textContent()) ?? '').includes('Start from'), 'the linking note opened');
      await $(page, 'notes-close').click();
      assert((await card.locator('[data-testid="change-undo"]').count()) === 0, 'no Undo on an undone change');
      assert(JSON.stringify(sends.map((b) => b.text)) === JSON.stringify([P.move]), `no message was sent for the undo, got ${JSON.stringify(sends)}`);
      const log = await activeLog(page, base);
      assert(log.some((e) => e.type === 'note.undone' && e.payload.undoes === changeId), 'the undo is in the conversation\'s log');

      // The log says so: still Undone after a reload.
      await page.reload();
      await card.waitFor({ timeout: WAIT_MS });
      assert((await card.locator('[data-testid="change-undone"]').count()) === 1, 'still Undone after a reload');
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'documents: a folder added by path is indexed with a progress bar; a binary file fails with its reason; retry and remove',
    slug: 'documents-panel',
    // The folder's texts are slow to embed (browser_test.go slowEmbedder), so the bar can be seen counting.
    async run({ page, base, shot }) {
      await clearDocuments(base);
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-panel').waitFor({ timeout: WAIT_MS });
      const panelText = await $(page, 'documents-embedder').textContent();
      assert(panelText.trim() === 'Meaning search: Ollama model nomic-embed-text', `the active embedder is said, got "${panelText}"`);

      // A relative path: Go's sentence, and nothing queued.
      await $(page, 'documents-input').fill('papers');
      await $(page, 'documents-add').click();
      await until(async () => ((await $(page, 'documents-error').textContent()) ?? '').includes(RELATIVE_PATH), 'the relative-path sentence');
      await $(page, 'documents-input').fill(join(FX.panelDir, 'nowhere'));
      await $(page, 'documents-add').click();
      await until(async () => ((await $(page, 'documents-error').textContent()) ?? '').includes(NO_SUCH_PATH), 'the missing-path sentence');

      await $(page, 'documents-input').fill(FX.panelDir);
      await $(page, 'documents-add').click();
      const bar = $(page, 'indexing-bar');
      // The bar counts files while the pass runs, naming the current one and the time left.
      await until(async () => /^Indexing \d of 3 files$/.test((await $(page, 'indexing-label').textContent()) ?? ''), 'the bar counting files');
      assert((await $(page, 'indexing-cancel').count()) === 1, 'Stop is offered while indexing');
      await until(async () => /left/.test((await $(page, 'indexing-detail').textContent()) ?? ''), 'the bar says the time left');
      await page.screenshot({ path: shot.replace(/\.png$/, '-progress.png') });
      await until(async () => (await bar.getAttribute('data-phase')) === 'done', 'the pass done');
      assert((await $(page, 'indexing-label').textContent()).trim() === 'Indexed 3 files', 'the outcome');
      const rows = () =>
        page.$$eval('[data-testid="doc-item"]', (els) =>
          els.map((el) => ({
            name: el.querySelector('[data-testid="doc-name"]').textContent.trim(),
            status: el.getAttribute('data-status'),
            reason: el.querySelector('[data-testid="doc-reason"]')?.textContent.trim() ?? '',
          })),
        );
      const got = await until(async () => {
        const r = await rows();
        return r.length === 3 && r.every((x) => x.status !== 'queued') && r;
      }, 'three documents listed');
      const photo = got.find((r) => r.name === 'papers/photo.txt');
      const failed = (await (await api(base, '/api/documents')).json()).documents.find((d) => d.path === join(FX.panelDir, 'photo.txt'));
      assert(failed?.status === 'failed' && /binary/.test(failed.reason), `Quire failed the binary file, got ${JSON.stringify(failed)}`);
      assert(photo?.status === 'failed' && photo.reason === failed.reason, `the binary file failed with its reason, got ${JSON.stringify(got)}`);
      assert(got.filter((r) => r.status === 'done').length === 2, `two ready, got ${JSON.stringify(got)}`);
      assert((await $(page, 'documents-count').textContent()).trim() === '3', 'the header counts the documents');
      // The file Quire does not read is skipped: not a failure, not a
      // document, listed apart in a collapsed group with the reason.
      assert(/1 file skipped \(not a format Quire reads\)/.test((await $(page, 'indexing-detail').textContent()) ?? ''), 'the bar says the skipped file');
      const skipped = (await (await api(base, '/api/documents')).json()).documents.find((d) => d.path === join(FX.panelDir, 'config.yml'));
      assert(skipped?.status === 'skipped' && skipped.reason === 'Quire does not read .yml files', `config.yml skipped with its reason, got ${JSON.stringify(skipped)}`);
      assert((await $(page, 'documents-counts').textContent()).trim() === '3 documents · 1 failed · 1 skipped', 'the panel counts the skipped file apart');
      const group = $(page, 'documents-skipped');
      assert(!(await group.evaluate((el) => el.open)), 'the skipped group starts collapsed');
      await $(page, 'documents-skipped-summary').click();
      const item = page.locator('[data-testid="doc-skipped"]');
      await item.waitFor({ timeout: WAIT_MS });
      assert((await item.locator('[data-testid="doc-reason"]').textContent()).trim() === 'Quire does not read .yml files', 'the skipped file shows its reason');
      await page.screenshot({ path: shot });

      // Retry is offered only on the failed one; Remove asks first, then the row goes.
      assert((await $(page, 'doc-retry').count()) === 1, 'one Retry');
      const retried = recordPosts(page, /\/api\/documents\/retry$/);
      await $(page, 'doc-retry').click();
      await until(() => retried.length === 1, 'the retry sent');
      assert(retried[0].path === join(FX.panelDir, 'photo.txt'), `retry of the failed file, got ${JSON.stringify(retried)}`);
      // Quire read it again, and failed it again for the same reason.
      await until(async () => {
        const d = (await (await api(base, '/api/documents')).json()).documents.find((x) => x.path === failed.path);
        return d.updated !== failed.updated && d.status === 'failed' && d.reason === failed.reason;
      }, 'the file read again');
      await page.locator('[data-testid="doc-item"][data-path$="/soil.txt"] [data-testid="doc-remove"]').click();
      await $(page, 'confirm-delete').click();
      await until(async () => (await rows()).every((r) => r.name !== 'papers/soil.txt'), 'soil.txt removed from the list');
      await until(async () => !(await (await api(base, '/api/documents')).json()).documents.some((d) => d.path.endsWith('/soil.txt')), 'soil.txt out of the index');
    },
  },

  {
    name: 'Stop cancels indexing; the bar says what was kept',
    slug: 'documents-cancel',
    // A file of this folder is embedded only once its pass is stopped (browser_test.go slowEmbedder).
    async run({ page, base }) {
      await clearDocuments(base);
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-input').fill(FX.holdDir);
      await $(page, 'documents-add').click();
      await $(page, 'indexing-cancel').click();
      const bar = $(page, 'indexing-bar');
      await until(async () => (await bar.getAttribute('data-phase')) === 'cancelled', 'the pass stopped');
      assert((await $(page, 'indexing-label').textContent()).trim() === 'Indexing stopped', 'the bar says it stopped');
      assert(((await $(page, 'indexing-detail').textContent()) ?? '').includes('the rest is picked up next time'), 'and what happens to the rest');
      await $(page, 'indexing-close').click();
      assert((await bar.count()) === 0, 'the finished bar can be closed');
      const docs = (await (await api(base, '/api/documents')).json()).documents;
      assert(!docs.some((d) => d.path.endsWith('/big.md') && d.status === 'done'), `the held file was not indexed, got ${JSON.stringify(docs)}`);
    },
  },


  {
    name: 'inside Wails: a dropped folder shows progress to done, the panel lists it, and the page cancels WebKit\'s own drop',
    slug: 'wails-drop',
    async run({ page, context, base }) {
      await context.addInitScript(fakeWails, { speaks: VERSION });
      await open(page, base);
      // The Linux reload bug: WebKitGTK opens a dropped file unless the page cancels the drop.
      const prevented = await page.evaluate(() => {
        const over = new DragEvent('dragover', { cancelable: true, bubbles: true });
        const drop = new DragEvent('drop', { cancelable: true, bubbles: true });
        document.body.dispatchEvent(over);
        document.body.dispatchEvent(drop);
        return [over.defaultPrevented, drop.defaultPrevented];
      });
      assert(JSON.stringify(prevented) === '[true,true]', `dragover and drop are cancelled, got ${JSON.stringify(prevented)}`);
      await page.evaluate(() => window.__drop(['/home/ann/papers']));
      await until(async () => ((await $(page, 'indexing-label').textContent()) ?? '') === 'Indexing 1 of 2 files', 'the bar while indexing');
      assert(((await $(page, 'indexing-detail').textContent()) ?? '').startsWith('notes.md · about 3 s left'), 'the current file and the time left');
      await until(async () => (await $(page, 'indexing-bar').getAttribute('data-phase')) === 'done', 'done');
      await $(page, 'documents-open').click();
      await until(async () => (await $(page, 'doc-item').count()) === 2, 'two documents');
      const embedder = (await $(page, 'documents-embedder').textContent()).trim();
      assert(embedder === 'Meaning search: Ollama model nomic-embed-text', `the embedder, got "${embedder}"`);
      const hint = await page.locator('[data-testid="documents-form"] .hint').textContent();
      assert(hint.includes('Drop files or folders anywhere on this window'), `the window says to drop, got "${hint}"`);
      // A drop Go cannot queue is said in the panel.
      await page.evaluate(() => window.__drop(['relative/path']));
      await until(async () => ((await $(page, 'documents-error').textContent()) ?? '').includes('no such file or folder'), 'the drop error');
      const calls = await page.evaluate(() => window.__calls);
      assert(calls.includes('Documents'), `the Documents binding was used, got ${JSON.stringify(calls)}`);
    },
  },

  {
    name: 'a compaction shows as a marker with the stub, and its originals expand',
    slug: 'compaction-marker',
    // The fake model reads a long log FX.compactReads times; before its last
    // step the real compaction drops the first read (drop-logs, by size:
    // compaction_test.go, whose arithmetic counts the note tools' declarations).
    async run({ page, base, shot }) {
      await useNotes(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.compact);
      await until(() => settled(page), 'the final reply');
      const marker = $(page, 'compaction');
      await marker.waitFor({ timeout: WAIT_MS });
      assert((await marker.count()) === 1, 'one marker');
      assert((await marker.getAttribute('data-strategy')) === 'drop-logs' && (await marker.getAttribute('data-trigger')) === 'size', 'drop-logs by size');
      const replace = (await activeLog(page, base)).find((e) => e.type === 'history.replace').payload;
      const { beforeTokens, afterTokens } = replace.compaction;
      const label = (await marker.locator('[data-part="label"]').textContent()).trim();
      const n = (x) => x.toLocaleString('en-US');
      assert(
        label === `Earlier messages compacted (long tool output dropped) because the context was getting full · ${n(beforeTokens)} → ${n(afterTokens)} tokens` && afterTokens < beforeTokens,
        `the marker says what, why and how much, got ${JSON.stringify(label)}`,
      );
      // What the model sees instead: behind a disclosure, the stub as Go wrote it.
      const summary = marker.locator('details.summary');
      assert(!(await summary.locator('[data-part="summary"]').isVisible()), 'the stub starts folded');
      await summary.locator('summary').click();
      const stub = await summary.locator('[data-part="summary"]').innerText();
      assert(stub === replace.summary, `the stub, as logged, got ${JSON.stringify(stub)}`);
      assert(
        stub.includes('Assistant called read_log {"path":"logs/build.md"}') && stub.includes('[dropped: read_log output'),
        `the stub names the call and what was dropped, got ${JSON.stringify(stub)}`,
      );
      // The originals expand: the call and the whole long output.
      const originals = $(page, 'compaction-originals');
      const toggle = originals.locator('summary');
      assert((await toggle.textContent()).trim() === 'Show the 2 original messages', `the expand control, got ${await toggle.textContent()}`);
      await toggle.click();
      const rows = await originals.locator('li').evaluateAll((els) => els.map((el) => ({ role: el.getAttribute('data-role'), text: el.querySelector('.what')?.textContent ?? '' })));
      const whole = rows[1]?.text.startsWith('Line 1 of the build log') && rows[1]?.text.includes('Line 40 of the build log');
      assert(rows.length === 2 && rows[0].role === 'assistant' && rows[1].role === 'tool' && whole, `the originals, got ${JSON.stringify(rows).slice(0, 300)}`);
      // The conversation above the marker is untouched: the read cards are still shown.
      assert((await toolCards(page)).length === FX.compactReads, 'the read cards are still shown');
      const msgs = await messages(page);
      assert(msgs.at(-1).text === 'The build log shows 40 modules compiled.', `the reply after the compaction, got ${JSON.stringify(msgs.at(-1))}`);
      await page.screenshot({ path: shot });
      // Replayed from the log after a reload: the same marker.
      await page.reload();
      await $(page, 'composer').waitFor();
      await until(async () => (await $(page, 'compaction').count()) === 1, 'the marker after reload');
    },
  },

  {
    name: 'the memory panel: a remember asks first, see the item by kind and how it was let in, edit it (an empty text is refused), remember without asking, follow it to its chat, forget it',
    slug: 'memory-panel',
    async run({ page, base, shot }) {
      const memory = async () => (await (await api(base, '/api/memory')).json()) ?? {};
      const item = (text) => page.locator('[data-testid="memory-item"]', { has: page.locator('[data-testid="memory-text"]', { hasText: text }) });
      await open(page, base);
      await newChat(page);
      await send(page, P.remember + 'Tags are lower-case.');
      const chatA = await activeId(page);
      // A memory write asks by default: the card shows the whole text to keep.
      const card = page.locator('[data-testid="permission"][data-state="open"]');
      await card.waitFor({ timeout: WAIT_MS });
      assert(((await card.textContent()) ?? '').includes('Tags are lower-case.'), 'the question shows the text to keep');
      await $(page, 'permission-allow').click();
      await until(() => settled(page), 'the reply after remember');

      await $(page, 'memory-open').click();
      await $(page, 'memory-panel').waitFor({ timeout: WAIT_MS });
      const tags = item('Tags are lower-case.');
      await tags.waitFor({ timeout: WAIT_MS });
      assert((await tags.getAttribute('data-kind')) === 'preference', 'the item is a preference');
      assert((await page.locator('[data-testid="memory-group"][data-group="preference"] [data-testid="memory-item"]').count()) === 1, 'shown under Preferences');
      assert((await tags.locator('[data-testid="memory-approved"]').getAttribute('data-approved')) === 'asked', 'recorded as a yes when asked');
      const id = await tags.getAttribute('data-id');

      // Edit, and an empty text is refused with Quire's sentence.
      await tags.locator('[data-testid="memory-edit"]').click();
      await $(page, 'memory-edit-input').fill('   ');
      await $(page, 'memory-save').click();
      await until(async () => ((await $(page, 'memory-error').textContent()) ?? '').includes(MEMORY_EMPTY), 'the empty-text sentence');
      await $(page, 'memory-edit-input').fill('Tags are lower-case and short.');
      await $(page, 'memory-save').click();
      await item('Tags are lower-case and short.').waitFor({ timeout: WAIT_MS });
      await until(async () => (await memory()).items?.find((i) => i.id === id)?.text === 'Tags are lower-case and short.', 'the host to hold the edit');
      await until(
        async () => (await item('Tags are lower-case and short.').locator('[data-testid="memory-approved"]').getAttribute('data-approved')) === 'user',
        'the edited item written by the user',
      );

      // Remember without asking: a conversation that read nothing keeps the
      // next item with no question.
      await $(page, 'memory-without-asking').check();
      await until(async () => (await memory()).approval === false, 'remember without asking saved');
      await $(page, 'memory-close').click();
      await send(page, P.remember + 'Notes go in the Inbox first.');
      await until(() => settled(page), 'the reply after the second remember');
      assert((await page.locator('[data-testid="permission"]').count()) === 1, 'no second question');
      await newChat(page);
      await $(page, 'memory-open').click();
      const inbox = item('Notes go in the Inbox first.');
      await inbox.waitFor({ timeout: WAIT_MS });
      assert((await inbox.getAttribute('data-status')) === 'kept', 'the new item is kept');
      assert((await inbox.locator('[data-testid="memory-approved"]').getAttribute('data-approved')) === 'unasked', 'recorded as remembered without asking');
      await page.screenshot({ path: shot });

      // The link goes back to the conversation it came from.
      await inbox.locator('[data-testid="memory-source"]').click();
      await until(async () => (await $(page, 'memory-panel').count()) === 0, 'the panel to close');
      await until(
        async () => (await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id')) === chatA,
        'the source chat to be active',
      );

      // Forget.
      await $(page, 'memory-open').click();
      await item('Tags are lower-case and short.').locator('[data-testid="memory-forget"]').click();
      await until(async () => (await item('Tags are lower-case and short.').count()) === 0, 'the forgotten item to go');
      await until(async () => !(await memory()).items?.some((i) => i.id === id), 'the host to forget it');
      await $(page, 'memory-without-asking').uncheck();
      await until(async () => (await memory()).approval === true, 'asking again');
    },
  },

  {
    // The fake Ollama has qwen3:4b and nomic-embed-text installed and can
    // pull tiny-text (browser_test.go); the models panel lists, pulls with
    // progress, refuses an unknown name in words, and deletes after asking.
    name: 'models panel: installed models with what each can do, a pull by name with progress, an unknown name said, delete after a confirmation',
    slug: 'models-panel',
    async run({ page, base, shot }) {
      const models = async () => (await (await api(base, '/api/models')).json()) ?? {};
      const row = (name) => page.locator(`[data-testid="model-row"][data-name="${name}"]`);
      await open(page, base);
      await $(page, 'models-open').click();
      await $(page, 'models-panel').waitFor({ timeout: WAIT_MS });
      const chat = row('qwen3:4b');
      await chat.waitFor({ timeout: WAIT_MS });
      const badges = await chat.locator('[data-testid="model-badge"]').allTextContents();
      assert(badges.join(',') === 'tools,thinking', `qwen3:4b's badges: ${badges}`);
      assert(((await chat.locator('[data-testid="model-context"]').textContent()) ?? '').includes('40,960'), 'the context length is shown');
      const embed = row('nomic-embed-text:latest');
      assert((await embed.locator('[data-testid="model-badge"]').allTextContents()).join(',') === 'embedding', 'the embedding model says so');
      const large = page.locator('[data-testid="recommended-row"][data-name="qwen3:8b"]');
      assert(((await large.locator('[data-testid="recommended-pull"]').textContent()) ?? '').includes('5.2 GB'), 'the recommended model shows its download size');
      assert((await page.locator('[data-testid="recommended-row"][data-name="qwen3:4b"] [data-testid="recommended-installed"]').count()) === 1, 'an installed recommendation says so');

      // Every state the page shows is recorded, so a quick pull's progress is seen.
      await recordPulls(page);
      await $(page, 'pull-name').fill('tiny-text');
      await $(page, 'pull-start').click();
      await row('tiny-text:latest').waitFor({ timeout: WAIT_MS });
      const states = await page.evaluate(() => window.__pullStates);
      assert(states.some((s) => /^running:\d+$/.test(s)), `the pull showed a running bar: ${JSON.stringify(states.slice(0, 20))}`);
      const done = (await models()).pulls?.find((p) => p.model === 'tiny-text');
      assert(done?.state === 'done' && done.completed === done.total && done.total > 0, `the host's last state of the pull: ${JSON.stringify(done)}`);
      await page.screenshot({ path: shot });

      // An unknown name is said in words, with a way to try again.
      await $(page, 'pull-name').fill('no-such-model');
      await $(page, 'pull-start').click();
      const failed = page.locator('[data-testid="pull-row"][data-name="no-such-model"][data-state="failed"]');
      await failed.waitFor({ timeout: WAIT_MS });
      assert(((await failed.locator('[data-testid="pull-status"]').textContent()) ?? '').includes('has no model'), 'the failure says the library has no such model');

      // Delete asks first; Cancel keeps the model.
      await row('tiny-text:latest').locator('[data-testid="model-delete"]').click();
      await $(page, 'confirm-dialog').waitFor({ timeout: WAIT_MS });
      await $(page, 'confirm-cancel').click();
      assert((await row('tiny-text:latest').count()) === 1, 'cancelled: still installed');
      await row('tiny-text:latest').locator('[data-testid="model-delete"]').click();
      await $(page, 'confirm-delete').click();
      await until(async () => (await row('tiny-text:latest').count()) === 0, 'the deleted model to leave the list');
      await until(async () => !(await models()).installed?.some((m) => m.name === 'tiny-text:latest'), 'Ollama to no longer have it');
      await $(page, 'models-close').click();
    },
  },

  {
    // A real folder (FX.docsDir, named "papers") and a fake model that calls
    // search_docs and then cites [1].
    name: 'documents end to end: add a folder, progress to done, a binary file failed, then a cited answer opens the source',
    slug: 'documents-e2e',
    async run({ page, base, shot }) {
      const root = FX.docsDir;
      await clearDocuments(base);
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-input').fill(root);
      await $(page, 'documents-add').click();
      const bar = $(page, 'indexing-bar');
      // Done with this folder's three files (not the removals before it).
      await until(
        async () => (await bar.count()) === 1 && (await bar.getAttribute('data-phase')) === 'done' && (await bar.getAttribute('data-total')) === '3',
        'indexing done with three files',
        30000,
      );
      const rows = await until(async () => {
        const r = await page.$$eval('[data-testid="doc-item"]', (els) =>
          els.map((el) => [el.querySelector('[data-testid="doc-name"]').textContent.trim(), el.getAttribute('data-status'), el.querySelector('[data-testid="doc-reason"]')?.textContent ?? '']),
        );
        return r.length === 3 && r.every(([, st]) => st === 'done' || st === 'failed') && r;
      }, 'the three documents listed');
      const byName = Object.fromEntries(rows.map(([n, st, why]) => [n, [st, why]]));
      assert(byName['papers/garden.md']?.[0] === 'done' && byName['papers/soil.txt']?.[0] === 'done', `garden.md and soil.txt ready, got ${JSON.stringify(rows)}`);
      assert(byName['papers/photo.txt']?.[0] === 'failed' && /binary/.test(byName['papers/photo.txt'][1]), `photo.txt failed as binary, got ${JSON.stringify(rows)}`);
      await $(page, 'documents-close').click();

      await newChat(page);
      await send(page, P.cite);
      await until(() => settled(page), 'the cited reply', 30000);
      const reply = (await messages(page)).at(-1);
      assert(reply.role === 'assistant' && reply.text === CITE_REPLY, `the reply, got ${JSON.stringify(reply)}`);
      const link = page.locator('[data-testid="citation-link"][data-cite="1"]');
      assert((await link.count()) === 1, 'the reply\'s [1] is a link');
      await link.click();
      await $(page, 'source-viewer').waitFor({ timeout: WAIT_MS });
      await until(async () => (await $(page, 'source-marked').count()) > 0, 'the cited lines highlighted');
      const name = (await $(page, 'source-name').textContent()).trim();
      const marked = await page.$$eval('[data-testid="source-marked"] .txt', (els) => els.map((e) => e.textContent));
      assert(name === 'papers/garden.md', `passage 1 is in garden.md, got ${name}`);
      assert(marked.includes('Water the basil every morning.'), `the highlighted lines hold the passage, got ${JSON.stringify(marked)}`);
      await page.screenshot({ path: shot });
    },
  },
  {
    name: 'Ctrl+K searches every chat: a message of another conversation is found with its words marked, and Enter opens it there, scrolled to and marked',
    slug: 'search-jump',
    async run({ page, base, shot }) {
      await open(page, base);
      // Chat A: the message to find, then enough after it that it is off screen.
      await newChat(page);
      await send(page, 'Where did I leave the marzipan moulds for the hangar party?');
      await until(() => settled(page), 'the first reply');
      const chatA = await activeId(page);
      for (let i = 1; i <= 4; i++) {
        await send(page, `filler ${i}: ` + 'a long line about tulips and other bulbs in the garden. '.repeat(12));
        await until(async () => (await messages(page)).filter((m) => m.role === 'assistant').length === i + 1 && (await settled(page)), `reply ${i + 1}`);
      }
      // Chat B is open when the search starts.
      await newChat(page);
      await send(page, 'something else entirely');
      await until(() => settled(page), 'the reply in chat B');
      const chatB = await activeId(page);
      assert(chatA !== chatB, 'two chats');

      await page.keyboard.press('Control+k');
      await $(page, 'search-palette').waitFor({ timeout: WAIT_MS });
      // FTS5 syntax is plain words here: a quote, a star, a minus are no error.
      await $(page, 'search-input').fill('"marzipan* -hangar');
      const hits = page.locator('[data-testid="search-hit"]');
      await until(async () => (await hits.count()) > 0, 'hits for a query with quotes, * and -');
      assert((await $(page, 'search-error').count()) === 0, 'no error for FTS5 syntax');
      await $(page, 'search-input').fill('MARZIPAN moulds');
      const read = () =>
        page.$$eval('[data-testid="search-hit"]', (els) =>
          els.map((el) => ({
            session: el.getAttribute('data-session-id'),
            seq: Number(el.getAttribute('data-seq')),
            chat: el.querySelector('.chat')?.textContent,
            marks: [...el.querySelectorAll('mark')].map((m) => m.textContent.toLowerCase()),
          })),
        );
      // The hits of this query (the last one's stay until its answer comes).
      const shown = await until(async () => {
        const h = await read();
        return h.length === 2 && h.every((x) => x.marks.includes('moulds')) && h;
      }, 'the user message and its echo, with both words marked');
      for (const h of shown) {
        assert(h.session === chatA, `every hit is in chat A, got ${JSON.stringify(shown)}`);
        assert(h.chat === 'Where did I leave the marzipan moulds…', `the hit names its chat (its automatic title), got ${h.chat}`);
        assert(h.marks.includes('marzipan') && h.marks.includes('moulds'), `the matched words are marked, got ${JSON.stringify(h.marks)}`);
      }
      // The hits are the very messages in chat A's log.
      const log = await (await api(base, `/api/sessions/${encodeURIComponent(chatA)}/events?from=0`)).json();
      const said = log.filter((e) => ['user.message', 'assistant.message'].includes(e.type) && /marzipan/i.test(e.payload.text ?? e.payload.content ?? '')).map((e) => e.seq);
      assert(JSON.stringify(shown.map((h) => h.seq).sort((a, b) => a - b)) === JSON.stringify(said), `hits at seqs ${JSON.stringify(shown.map((h) => h.seq))}, the log says ${JSON.stringify(said)}`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-palette.png') });

      // Enter opens the selected (first) hit in its chat, brought into view and marked.
      const target = shown[0].seq;
      await $(page, 'search-input').press('Enter');
      await $(page, 'search-palette').waitFor({ state: 'detached' });
      await until(async () => (await activeId(page)) === chatA, 'chat A open');
      const found = page.locator(`[data-found="${target}"]`);
      await found.waitFor({ timeout: WAIT_MS });
      assert(/marzipan/i.test(await found.textContent()), 'the marked message is the one found');
      await until(async () => {
        const box = await found.boundingBox();
        return box && box.y >= 0 && box.y + Math.min(box.height, 40) <= 800;
      }, 'the message scrolled into view');
      const last = page.locator('[data-testid="message"]').last();
      const lastBox = await last.boundingBox();
      assert(!lastBox || lastBox.y > 800 || (await last.textContent()).includes('marzipan'), 'the view moved up from the bottom of the chat');
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'export: a cited conversation downloads as Markdown with its citations as footnotes naming file and lines, and its log as JSON lines',
    slug: 'export-md',
    async run({ page, base, shot }) {
      await indexDocs(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.cite);
      await until(() => settled(page), 'the cited reply');
      const id = await activeId(page);
      await until(async () => (await page.locator('.header .title').textContent()) === P.cite, 'the chat named by its message');

      await $(page, 'export-open').click();
      await $(page, 'export-menu').waitFor();
      await page.screenshot({ path: shot.replace(/\.png$/, '-menu.png') });
      const [md] = await Promise.all([page.waitForEvent('download'), $(page, 'export-md').click()]);
      assert(md.suggestedFilename() === 'cite-how-do-I-water-the-basil.md', `the file's name, got ${md.suggestedFilename()}`);
      const text = readFileSync(await md.path(), 'utf8');
      // The citations the log holds, as the footnotes must name them.
      const log = await (await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=0`)).json();
      const cited = log.find((e) => e.type === 'tool.result' && e.payload.name === 'search_docs').payload.data.hits;
      assert(cited.length === 2 && cited[0].path === join(FX.docsDir, 'garden.md'), `the search cited garden.md first, got ${JSON.stringify(cited)}`);
      const want = [
        `# ${P.cite}\n`,
        `## You\n\n${P.cite}\n`,
        '> Tool `search_docs`',
        `## Quire\n\n${CITE_REPLY.replace('[1]', '[^1]').replace('[2]', '[^2]')}\n`,
        `[^1]: ${join(FX.docsDir, 'garden.md')}, lines 5–12 (Garden)\n`,
        `[^2]: ${join(FX.docsDir, 'soil.txt')}, lines 1–2\n`,
      ];
      for (const w of want) assert(text.includes(w), `the Markdown has ${JSON.stringify(w)}:\n${text}`);
      assert(cited[0].startLine === 5 && cited[0].endLine === 12, `the footnote's lines are the citation's, got ${JSON.stringify(cited[0])}`);
      await until(async () => ((await $(page, 'export-status').textContent()) ?? '').includes('Downloaded cite-how-do-I-water-the-basil.md'), 'the page says what it downloaded');

      await $(page, 'export-open').click();
      const [jl] = await Promise.all([page.waitForEvent('download'), $(page, 'export-jsonl').click()]);
      assert(jl.suggestedFilename() === 'cite-how-do-I-water-the-basil.jsonl', `the log's name, got ${jl.suggestedFilename()}`);
      const lines = readFileSync(await jl.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const publicLog = log.filter((e) => e.visibility === 'public');
      assert(lines.length === publicLog.length && lines.every((e, i) => e.seq === publicLog[i].seq && e.type === publicLog[i].type && e.visibility === 'public'), `one line per public event, got ${lines.length} for ${publicLog.length}`);
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'a cited answer: search_docs passages and [n] in the reply open the source at the cited lines',
    slug: 'citations',
    // Last: it removes a document the other cases cite.
    async run({ page, base, shot }) {
      const garden = join(FX.docsDir, 'garden.md');
      await indexDocs(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.cite);
      await until(() => settled(page), 'the reply');
      const reply = (await messages(page)).at(-1);
      assert(reply.text === CITE_REPLY, `the reply, got ${JSON.stringify(reply)}`);
      const links = await page.$$eval('[data-testid="citation-link"]', (els) => els.map((e) => e.textContent));
      assert(JSON.stringify(links) === JSON.stringify(['[1]', '[2]']), `[1] and [2] are links, got ${JSON.stringify(links)}`);
      // The search_docs card lists the passages as links too, not the model's text.
      const passages = await page.$$eval('[data-testid="citation"]', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim()));
      // One passage per idea: garden.md's Water and Soil sections both match
      // and are next to each other, so they are one citation of lines 5–12
      // under their common heading; its first section holds no query word
      // and is not cited (the default ranking is by words).
      assert(
        JSON.stringify(passages) === JSON.stringify(['[1] papers/garden.md › Garden · lines 5–12', '[2] papers/soil.txt · lines 1–2']),
        `the passages, got ${JSON.stringify(passages)}`,
      );
      // Why each was found (soil.txt is the lexical arm's third: its second,
      // the Soil section, is in [1]).
      const why = await page.$$eval('[data-testid="citation-why"]', (els) => els.map((e) => e.textContent.trim()));
      assert(
        JSON.stringify(why) === JSON.stringify(['matched: water, basil, every, morning, compost, soil · keyword rank 1', 'matched: compost, soil · keyword rank 3']),
        `why this passage, got ${JSON.stringify(why)}`,
      );

      await page.locator('[data-testid="citation-link"][data-cite="1"]').click();
      const viewer = $(page, 'source-viewer');
      await viewer.waitFor({ timeout: WAIT_MS });
      await until(async () => (await $(page, 'source-marked').count()) === 8, 'the cited lines highlighted');
      const marked = await page.$$eval('[data-testid="source-marked"]', (els) => els.map((e) => [Number(e.getAttribute('data-line')), e.querySelector('.txt').textContent.trim()]));
      assert(
        JSON.stringify(marked) ===
          JSON.stringify([[5, '## Water'], [6, ''], [7, 'Water the basil every morning.'], [8, 'Never let the pots dry out.'], [9, ''], [10, '## Soil'], [11, ''], [12, 'Add compost in spring.']]),
        `lines 5–12 highlighted, got ${JSON.stringify(marked)}`,
      );
      assert((await $(page, 'source-name').textContent()).trim() === 'papers/garden.md', 'the viewer names the document');
      assert((await $(page, 'source-where').textContent()).trim() === 'lines 5–12', 'and the lines');
      const visible = await page.locator('[data-testid="source-marked"]').first().isVisible();
      assert(visible, 'the cited lines are in view');
      await page.screenshot({ path: shot });
      await page.keyboard.press('Escape');
      await until(async () => (await viewer.count()) === 0, 'Escape closes the viewer');

      // The card's passage [2] opens soil.txt.
      await page.locator('[data-testid="citation"][data-cite="2"]').click();
      await until(async () => ((await $(page, 'source-name').textContent()) ?? '').trim() === 'papers/soil.txt', 'soil.txt in the viewer');
      await $(page, 'source-close').click();

      // Once removed, a citation of it is refused with Go's sentence, not shown.
      await api(base, '/api/documents/remove', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: garden }) });
      await until(async () => !(await (await api(base, '/api/documents')).json()).documents.some((d) => d.path === garden), 'garden.md out of the index');
      await page.locator('[data-testid="citation-link"][data-cite="1"]').click();
      await until(async () => ((await $(page, 'source-error').textContent()) ?? '').includes(NOT_INDEXED), 'the refusal in the viewer');
      assert((await $(page, 'source-marked').count()) === 0, 'no text shown for a refused document');
    },
  },

  {
    name: "a forget's question in the browser names the item's kind and text, not only its id",
    slug: 'question-forget',
    async run({ page, base, shot }) {
      const memory = async () => (await (await api(base, '/api/memory')).json()) ?? {};
      const fact = `The spare key is under the blue pot (${Date.now()}).`;
      await open(page, base);
      await newChat(page);
      await send(page, P.remember + fact);
      const card = page.locator('[data-testid="permission"][data-state="open"]');
      await card.waitFor({ timeout: WAIT_MS });
      await $(page, 'permission-allow').click();
      await until(() => settled(page), 'the reply after remember');
      const kept = await until(async () => (await memory()).items?.find((i) => i.text === fact), 'the item kept');

      // The model names the item by id alone; the card names what it is.
      await newChat(page);
      await send(page, P.forget + kept.id);
      await card.waitFor({ timeout: WAIT_MS });
      const desc = card.locator('[data-testid="permission-description"]');
      await desc.waitFor({ timeout: WAIT_MS });
      const said = await desc.innerText();
      assert(said.includes(`Forget this preference [${kept.id}]`) && said.includes(fact), `the question names the item, got ${JSON.stringify(said)}`);
      assert(!(await $(page, 'permission-allow').isDisabled()), 'Allow is offered once the card shows the item');
      await page.screenshot({ path: shot });

      await $(page, 'permission-deny').click();
      await $(page, 'permission-record').waitFor({ timeout: WAIT_MS });
      await until(() => settled(page), 'the reply after the refusal');
      assert((await memory()).items?.some((i) => i.id === kept.id), 'a refused forget keeps the item');
    },
  },

  {
    name: 'a long create shows every line, tail included, before Allow is offered',
    slug: 'question-long',
    async run({ page, base, shot }) {
      await useNotes(base);
      // Hold the questions stream back: the card is up (from the log's
      // permission.requested) before Go's whole question reaches the page.
      let release;
      const held = new Promise((r) => (release = r));
      await page.route('**/api/questions/stream**', async (route) => {
        await held;
        await route.continue();
      });
      await open(page, base);
      await newChat(page);
      await send(page, P.long);
      const card = page.locator('[data-testid="permission"][data-state="open"]');
      await card.waitFor({ timeout: WAIT_MS });
      await $(page, 'permission-waiting').waitFor({ timeout: WAIT_MS });
      assert(await $(page, 'permission-allow').isDisabled(), 'no Allow before the whole question is on the card');
      assert((await card.locator('[data-testid="permission-description"]').count()) === 0, 'no description yet');

      release();
      const desc = card.locator('[data-testid="permission-description"]');
      await desc.waitFor({ timeout: WAIT_MS });
      await until(async () => !(await $(page, 'permission-allow').isDisabled()), 'Allow offered once the card shows it all');
      const lines = FX.long.split('\n');
      const tail = desc.locator('.line').last();
      await tail.scrollIntoViewIfNeeded();
      assert((await tail.textContent()) === `+ ${lines.at(-1)}`, `the last line is the tail, got ${JSON.stringify(await tail.textContent())}`);
      assert(await tail.isVisible(), 'the tail is on screen');
      const said = await desc.innerText();
      assert(lines.every((l) => said.includes(`+ ${l}`)), 'every line it writes');
      assert((await $(page, 'permission-waiting').count()) === 0, 'nothing left to wait for');
      await page.screenshot({ path: shot });

      await $(page, 'permission-allow').click();
      await $(page, 'permission-record').waitFor({ timeout: WAIT_MS });
      await until(() => settled(page), 'the reply after Allow');
      assert(readFileSync(join(FX.notesDir, 'long-plan.md'), 'utf8').includes(lines.at(-1)), 'the note is written, tail and all');
    },
  },

  {
    name: 'only the page opened through the printed link can use Quire',
    slug: 'secret',
    async run({ page, context, base, shot }) {
      const title = `secret ${Date.now()}`;
      const made = await api(base, '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title }) });
      assert(made.status === 200, `a chat made with the secret, got ${made.status}`);

      // The bare address: the page loads, the API refuses it, and the page
      // says what to open; no chat is shown.
      await page.goto(base, { waitUntil: 'domcontentloaded' });
      await $(page, 'composer').waitFor({ timeout: WAIT_MS });
      const strip = $(page, 'error-strip');
      await strip.waitFor({ timeout: WAIT_MS });
      const said = (await strip.textContent()).replace(/\s+/g, ' ');
      assert(said.includes('open the link quire serve printed'), `the page says to open the printed link, got "${said}"`);
      assert((await $(page, 'session-item').count()) === 0, 'no chat listed without the secret');
      const bare = await page.evaluate(async () => (await fetch('/api/sessions', { headers: { 'Quire-Protocol': '1.0' } })).status);
      assert(bare === 401, `the page without the secret reads the chats: ${bare}`);
      await page.screenshot({ path: shot });

      // The printed link: an HttpOnly, SameSite=Strict cookie the page's
      // script cannot read, the bare address, and the chats.
      await open(page, base);
      const cookie = (await context.cookies(base)).find((c) => c.name === `quire-${new URL(base).port}`);
      assert(cookie && cookie.httpOnly && cookie.sameSite === 'Strict' && cookie.path === '/', `the cookie, got ${JSON.stringify(cookie)}`);
      assert(!(await page.evaluate(() => document.cookie)).includes(cookie.value), "the page's script cannot read the secret");
      await until(async () => (await sessionTitles(page)).includes(title), 'the chats, listed with the secret');

      // Another page on this machine (another port of 127.0.0.1: the same
      // site, so the browser sends the cookie along) can neither read the
      // chats nor post one with a text/plain form body. (Not a Quire page:
      // its own policy would not let it send either request.)
      const elsewhere = await otherOrigin();
      try {
        await page.goto(elsewhere.url, { waitUntil: 'domcontentloaded' });
        const attack = await page.evaluate(async (target) => {
          const out = {};
          try {
            const r = await fetch(`${target}/api/sessions`, { credentials: 'include', headers: { 'Quire-Protocol': '1.0' } });
            out.read = `read ${r.status}`;
          } catch {
            out.read = 'blocked';
          }
          try {
            await fetch(`${target}/api/sessions?protocol=1.0`, {
              method: 'POST',
              mode: 'no-cors',
              credentials: 'include',
              headers: { 'Content-Type': 'text/plain' },
              body: JSON.stringify({ title: 'from another page' }),
            });
            out.post = 'sent';
          } catch {
            out.post = 'blocked';
          }
          return out;
        }, base);
        assert(attack.read === 'blocked' && attack.post === 'sent', `the other page's attempts, got ${JSON.stringify(attack)}`);
      } finally {
        await elsewhere.close();
      }
      const after = await (await api(base, '/api/sessions')).json();
      assert(!after.some((s) => s.title === 'from another page'), `another page made a chat: ${JSON.stringify(after.map((s) => s.title))}`);
    },
  },

  {
    name: 'a reply steered to send what it read off the laptop loads nothing, and the page may load nothing from elsewhere',
    slug: 'exfil',
    async run({ page, base, shot }) {
      const evil = await otherOrigin();
      try {
        // Every refusal of the page's policy, from the first script on.
        await page.addInitScript(() => {
          window.__refused = [];
          document.addEventListener('securitypolicyviolation', (e) => window.__refused.push({ uri: e.blockedURI, directive: e.effectiveDirective }));
        });
        await open(page, base);
        // The fake model's reply (test/e2e/script_test.go exfilReply) holds
        // every vector of the outside attack run, each pointing at evil.
        await send(page, P.exfil + evil.url);
        await until(async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text.endsWith('That is all.')), 'the whole reply');
        await until(async () => (await page.locator('[data-role="assistant"].streaming').count()) === 0, 'streaming to end');
        const reply = page.locator('[data-role="assistant"]').last();
        const text = await reply.textContent();
        assert(text.includes(`[image: status, ${evil.url}/leak?code=4471-ALPHA]`), `the image is shown as words, got "${text}"`);
        const loaders = await reply.locator('img, video, audio, source, picture, object, embed, iframe, [style], [ping], [srcset], [background], [poster]').count();
        assert(loaders === 0, `the reply kept ${loaders} elements that load by themselves`);
        assert((await reply.locator(`a[href="${evil.url}/leak3"]`).count()) === 1, 'a link stays a link (followed on a click only)');

        // The second wall: markup the sanitiser let through would still
        // load nothing from another origin. Each refusal is a positive sign
        // the browser tried and was stopped, so waiting for them is also
        // the moment by which the reply's own loads would have gone out.
        const refused = await page.evaluate(async (target) => {
          const seen = (uri) => window.__refused.some((r) => r.uri.startsWith(uri));
          const div = document.createElement('div');
          div.innerHTML = `<img src="${target}/csp-img"><span style="background-image:url(${target}/csp-style)">s</span><video poster="${target}/csp-poster"></video>`;
          document.body.append(div);
          let fetched = 'sent';
          try {
            await fetch(`${target}/csp-fetch`, { mode: 'no-cors' });
          } catch {
            fetched = 'refused';
          }
          await new Promise((resolve) => {
            const check = () => (seen(`${target}/csp-img`) && seen(`${target}/csp-fetch`) ? resolve() : requestAnimationFrame(check));
            check();
          });
          div.remove();
          return { fetched, refused: window.__refused };
        }, evil.url);
        await page.screenshot({ path: shot });
        assert(refused.fetched === 'refused', `a fetch to another origin was ${refused.fetched}`);
        const directives = new Set(refused.refused.filter((r) => r.uri.startsWith(evil.url)).map((r) => r.directive));
        assert(directives.has('img-src') && directives.has('connect-src'), `the policy refused ${JSON.stringify([...directives])}`);
        assert(!refused.refused.some((r) => r.uri.includes('/leak')), `the reply itself tried to load: ${JSON.stringify(refused.refused)}`);
        assert(evil.heard.length === 0, `the page reached the other origin: ${JSON.stringify(evil.heard)}`);
      } finally {
        await evil.close();
      }
    },
  },

  {
    name: 'words typed before the list of chats has loaded stay in the new chat: the window does not switch to the newest under them',
    slug: 'early-words',
    async run({ page, base, shot }) {
      // The list of chats is held until the words are in the box: on a slow
      // machine the composer is there first (the CI failure of the exfil case).
      let release = () => {};
      const held = new Promise((r) => (release = r));
      await page.route(
        (url) => url.pathname === '/api/sessions',
        async (route) => {
          if (route.request().method() === 'GET') await held;
          return route.continue();
        },
      );
      const words = 'early words before the list, kept where they were typed';
      await page.goto(LINKS.get(base) ?? base, { waitUntil: 'domcontentloaded' });
      await $(page, 'composer').waitFor({ timeout: WAIT_MS });
      await $(page, 'composer').fill(words);
      release();
      const all = (await (await api(base, '/api/sessions')).json()).filter((s) => !s.kind).length;
      assert(all > 0, 'other cases left chats, one of them the newest');
      await until(async () => (await $(page, 'session-item').count()) === all, `the ${all} chats in the sidebar`);
      assert((await page.locator('[data-testid="session-item"][aria-current="page"]').count()) === 0, 'no chat was opened under the words');
      assert((await $(page, 'composer').inputValue()) === words, `the box still holds the words, got "${await $(page, 'composer').inputValue()}"`);
      await $(page, 'composer').press('Enter');
      await until(async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text.includes(words)), 'the echo of the words');
      const id = await activeId(page);
      const list = await (await api(base, '/api/sessions')).json();
      assert(list.filter((s) => !s.kind).length === all + 1, 'the words made a chat of their own');
      const log = await (await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=0`)).json();
      const said = log.filter((e) => e.type === 'user.message').map((e) => e.payload.text);
      assert(JSON.stringify(said) === JSON.stringify([words]), `the new chat holds only the words, got ${JSON.stringify(said)}`);
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'an empty reply is never silent: Quire asks again, then says so with Retry, and Retry gets the answer',
    slug: 'empty-retry',
    // The fake model returns nothing to this prompt (also after Quire's
    // note), and answers when it is sent again.
    async run({ page, base }) {
      await open(page, base);
      await newChat(page);
      await send(page, P.empty);
      const err = await until(async () => (await messages(page)).find((m) => m.role === 'error'), 'an error item');
      const log = await activeLog(page, base);
      const finished = log.filter((e) => e.type === 'run.finished').at(-1);
      assert(finished?.payload?.reason === 'empty', `the run ends as empty, got ${JSON.stringify(finished)}`);
      assert(err.text === finished.payload.error && err.text.includes('returned nothing'), `the sentence from Go, got "${err.text}"`);
      const shown = await messages(page);
      assert(
        JSON.stringify(shown.map((m) => m.role)) === JSON.stringify(['user', 'notice', 'error']),
        `user, Quire's note as a notice, the error; got ${JSON.stringify(shown)}`,
      );
      assert(!shown.some((m) => m.text.startsWith('Your last reply was empty')), 'the note to the model is not shown as a message');
      await $(page, 'retry').click();
      await until(
        async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === P.emptyAnswer),
        'the answer after Retry',
      );
      const users = (await messages(page)).filter((m) => m.role === 'user').map((m) => m.text);
      assert(JSON.stringify(users) === JSON.stringify([P.empty, P.empty]), `Retry sent the same words again, got ${JSON.stringify(users)}`);
    },
  },

  {
    name: 'Settings: opened by Ctrl+, the theme applies at once, the address is checked as typed, a refused temperature is said by its field, and the next request carries what was saved',
    slug: 'settings',
    async run({ page, base, shot }) {
      const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
      const text = async (id) => ((await $(page, id).textContent()) ?? '').trim();
      await open(page, base);
      await newChat(page);
      await page.keyboard.press('Control+,');
      await $(page, 'settings-panel').waitFor({ timeout: WAIT_MS });
      await $(page, 'settings-host').waitFor({ timeout: WAIT_MS });
      assert(
        (await text('settings-note')) === 'Changes apply to the next reply; a reply in progress keeps the settings it started with.',
        `the note on when changes apply: ${await text('settings-note')}`,
      );

      // The theme is shown at once, before it is saved.
      await $(page, 'settings-theme-dark').check();
      await until(async () => (await theme()) === 'dark', 'the dark theme on the page');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert(bg === 'rgb(27, 28, 30)', `the page is dark: background ${bg}`);

      // The address is checked as it is typed, and nothing is saved by it.
      const address = await $(page, 'settings-host').inputValue();
      await $(page, 'settings-host').fill('http://127.0.0.1:1');
      await until(async () => (await text('settings-check')).includes('Nothing answers at http://127.0.0.1:1: is Ollama running?'), 'the check of a closed port');
      await $(page, 'settings-host').fill(address);
      await until(async () => /^Ollama \S+ answers here/.test(await text('settings-check')), 'the check of the fake Ollama');

      // A temperature out of bounds is refused next to its field.
      await $(page, 'settings-temperature-default').uncheck();
      await $(page, 'settings-temperature').fill('3');
      await $(page, 'settings-temperature').press('Tab');
      await $(page, 'settings-about').fill(P.about);
      await $(page, 'settings-save').click();
      await until(async () => (await text('settings-error-temperature')).includes('between 0 and 2'), 'the temperature refused by its field');
      const held = async () => (await (await api(base, '/api/settings')).json()).settings;
      assert((await held()).temperature === null, 'a refused change saves nothing');
      await $(page, 'settings-temperature').fill('0.35');
      await $(page, 'settings-temperature').press('Tab');
      await $(page, 'settings-save').click();
      await $(page, 'settings-saved').waitFor({ timeout: WAIT_MS });
      const saved = await held();
      assert(saved.temperature === 0.35 && saved.theme === 'dark' && saved.aboutYou === P.about, `the host holds ${JSON.stringify(saved)}`);
      await page.screenshot({ path: shot });
      await page.keyboard.press('Escape');
      await until(async () => (await $(page, 'settings-panel').count()) === 0, 'the screen closed');

      // The next reply's request carries them (the fake model says what it was sent).
      await send(page, P.settings);
      await until(() => settled(page), 'the reply');
      const last = (await messages(page)).at(-1);
      assert(last?.text === 'I was sent temperature 0.35 and your words about you.', `the reply: ${JSON.stringify(last)}`);

      // The theme is the saved one after a reload.
      await page.reload({ waitUntil: 'domcontentloaded' });
      await $(page, 'composer').waitFor({ timeout: WAIT_MS });
      await until(async () => (await theme()) === 'dark', 'the saved theme after a reload');
    },
  },

  {
    name: 'documents: the embedding model is chosen from the installed ones, and the documents are re-embedded with it in the background',
    slug: 'documents-embedder',
    async run({ page, base }) {
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-embedding').waitFor({ timeout: WAIT_MS });
      const select = $(page, 'embedding-select');
      // None, and the fake Ollama's two embedding models (not its chat model).
      await until(async () => (await select.locator('option').count()) === 3, 'none and the two installed embedding models');
      assert((await select.inputValue()) === 'nomic-embed-text', `the chosen model is selected, got "${await select.inputValue()}"`);
      const line = async () => ((await $(page, 'documents-embedder').textContent()) ?? '').trim();
      for (const [model, shown] of [
        ['all-minilm', 'Meaning search: Ollama model all-minilm'],
        // Back to the default, so the cases after this one find it.
        ['nomic-embed-text', 'Meaning search: Ollama model nomic-embed-text'],
      ]) {
        await select.selectOption(model);
        await $(page, 'embedding-use').click();
        await until(async () => (await line()) === shown, `${model} in use`);
        const st = await (await api(base, '/api/documents')).json();
        assert(st.embedding.model === model && st.embedding.status === 'ready' && !st.embedding.target && st.embedding.dimensions > 0,
          `after choosing ${model}: ${JSON.stringify(st.embedding)}`);
        assert(!(await $(page, 'embedding-problem').count()), 'no problem is said for an installed model');
      }
    },
  },

  {
    name: 'notes panel: a write approved in a chat is listed in Changes by Quire with its diff, previewed on the note first, and undone from the list by Quire itself',
    slug: 'changes-undo',
    async run({ page, base, shot }) {
      const note = join(FX.notesDir, 'garden.md');
      const before = readFileSync(note, 'utf8');
      assert(before === FX.garden, `garden.md as the fixtures wrote it, got ${JSON.stringify(before)}`);
      const sends = recordPosts(page, /\/messages$/);
      await useNotes(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.garden);
      const ask = page.locator('[data-testid="permission"][data-state="open"]');
      await ask.waitFor({ timeout: WAIT_MS });
      // Preview on the note: the note as the write would leave it, nothing written yet.
      await ask.locator('[data-testid="permission-preview"]').click();
      const preview = ask.locator('[data-testid="permission-preview-view"]');
      await preview.waitFor({ timeout: WAIT_MS });
      assert((await preview.textContent()).includes('+ - buy seeds'), `the preview shows the added line, got ${await preview.textContent()}`);
      assert(readFileSync(note, 'utf8') === before, 'the preview wrote nothing');
      await $(page, 'permission-allow').click();
      await until(() => settled(page), 'the reply');
      const written = readFileSync(note, 'utf8');
      assert(written === before + '- buy seeds\n', `the approved write, got ${JSON.stringify(written)}`);

      // Changes by Quire: the change, its conversation and its diff.
      await $(page, 'notes-open').click();
      await $(page, 'notes-panel').waitFor({ timeout: WAIT_MS });
      await $(page, 'note-file').filter({ hasText: 'garden.md' }).click();
      await until(async () => ((await $(page, 'note-preview').textContent()) ?? '').includes('buy seeds'), 'the note rendered in the preview');
      await page.screenshot({ path: shot.replace(/\.png$/, '-notes.png') });
      await $(page, 'changes-tab').click();
      const row = page.locator('[data-testid="change"]').filter({ hasText: 'garden.md' }).first();
      await row.waitFor({ timeout: WAIT_MS });
      assert((await row.getAttribute('data-state')) === 'applied', `the change applied, got ${await row.getAttribute('data-state')}`);
      assert((await row.locator('[data-testid="change-diff"]').textContent()).includes('+ - buy seeds'), 'its diff');
      const title = (await page.locator('[data-testid="session-item"][aria-current="page"]').textContent()).trim();
      assert(title.length > 0 && (await row.locator('[data-testid="change-session"]').textContent()).trim().length > 0, 'the conversation it came from');

      // The user edits the note after Quire: the undo is refused in words, nothing is lost,
      // both versions can be seen, and the button is given back.
      const byHand = written + 'a line of my own\n';
      writeFileSync(note, byHand);
      await row.locator('[data-testid="change-undo"]').click();
      await $(page, 'confirm-delete').click();
      await until(async () => ((await $(page, 'changes-outcome').textContent()) ?? '').includes('changed after Quire wrote it'), 'the refusal said');
      assert(readFileSync(note, 'utf8') === byHand, 'a refused undo changed nothing');
      // The list is read again after the outcome is said: wait for it.
      await until(async () => (await row.getAttribute('data-state')) === 'changed', 'the change now "changed since"');
      await $(page, 'changes-versions').click();
      await $(page, 'changes-both-versions').waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'version-quire').textContent()) === written && (await $(page, 'version-now').textContent()) === byHand, 'both versions side by side');
      await page.screenshot({ path: shot.replace(/\.png$/, '-refused.png') });
      assert((await row.locator('[data-testid="change-undo"]').textContent()).trim() === 'Undo', 'the button given back');
      writeFileSync(note, written);
      await $(page, 'notes-refresh').click();
      await until(async () => (await row.getAttribute('data-state')) === 'applied', 'applied again once the note is as Quire left it');

      // Undo: a yes to the exact reverse, then Quire undoes it itself — no message to the model.
      await row.locator('[data-testid="change-undo"]').click();
      const detail = await $(page, 'confirm-detail').textContent();
      assert(detail.includes('garden.md') && detail.includes('- - buy seeds'), `the question shows the reverse, got ${detail}`);
      await $(page, 'confirm-delete').click();
      await until(async () => (await row.getAttribute('data-state')) === 'undone', 'the change undone');
      assert(readFileSync(note, 'utf8') === before, `the file on disk restored, got ${JSON.stringify(readFileSync(note, 'utf8'))}`);
      assert((await row.locator('[data-testid="change-state"]').textContent()).trim() === 'Undone by you', 'undone by the user');
      assert((await $(page, 'changes-outcome').textContent()).includes('Undone: garden.md'), 'the outcome said');
      assert(sends.length === 1, `no message was sent to the model for the undo, got ${JSON.stringify(sends)}`);
      const log = await activeLog(page, base);
      const undone = log.filter((e) => e.type === 'note.undone');
      assert(undone.length === 1 && /^chg_/.test(undone[0].payload.undoes), `the undo is in the conversation's log, got ${JSON.stringify(undone)}`);
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'edit a message and resend it: a branch with the new words, the ‹ 2/2 › switcher, and back to the original, which stays',
    slug: 'branch-edit',
    async run({ page, base, shot }) {
      const original = await chatWith(page, base, 'first question', 'second question');
      const before = await messages(page);
      const originalLog = await activeLog(page, base);

      const second = page.locator('[data-role="user"]').nth(1);
      await second.hover();
      await page.locator('[data-testid="edit-message"]').nth(1).click();
      const box = $(page, 'edit-input');
      await box.waitFor();
      assert((await box.inputValue()) === 'second question', `the editor holds the message, got "${await box.inputValue()}"`);
      await box.fill('second question, edited');
      await $(page, 'edit-send').click();

      const branch = await until(async () => {
        const id = await shownId(page);
        return id !== original && id;
      }, 'the branch to open');
      const edited = [
        { role: 'user', text: 'first question' },
        { role: 'assistant', text: 'You said: first question' },
        { role: 'user', text: 'second question, edited' },
        { role: 'assistant', text: 'You said: second question, edited' },
      ];
      await until(async () => JSON.stringify(await messages(page)) === JSON.stringify(edited) && (await settled(page)), 'the branch: the inherited start, the edited message and its reply');
      assert((await $(page, 'branch-position').textContent()) === '2/2', 'the switcher says 2/2');
      // The sidebar shows the branch under its conversation, named by the edited words.
      const row = page.locator(`[data-testid="session-item"][data-session-id="${branch}"]`);
      assert((await row.getAttribute('data-depth')) === '1', 'the branch is indented under its conversation');
      assert((await row.locator('[data-testid="session-title"]').textContent()) === 'second question, edited', 'the branch is named by its first different message');
      const rows = await page.$$eval('[data-testid="session-item"]', (els) => els.map((e) => e.getAttribute('data-session-id')));
      assert(rows.indexOf(branch) === rows.indexOf(original) + 1, `the branch row right under the original, got ${JSON.stringify(rows)}`);
      // The log says where it branched: just before the edited message.
      const log = await activeLog(page, base);
      const userSeq = originalLog.filter((e) => e.type === 'user.message')[1].seq;
      assert(JSON.stringify(log[0].payload.parent) === JSON.stringify({ session: original, seq: userSeq - 1 }), `branch point ${JSON.stringify(log[0].payload)}, want ${original} at ${userSeq - 1}`);
      await page.screenshot({ path: shot.replace(/\.png$/, '-branch.png') });

      // ‹ goes back to the original, whole and unchanged.
      await $(page, 'branch-prev').click();
      await until(async () => (await shownId(page)) === original, 'the original to open');
      await until(async () => JSON.stringify(await messages(page)) === JSON.stringify(before), 'the original conversation as it was');
      assert((await $(page, 'branch-position').textContent()) === '1/2', 'the switcher says 1/2');
      const after = await activeLog(page, base);
      assert(after.length === originalLog.length, `the original's log is untouched (${originalLog.length} events, now ${after.length})`);

      // Deleting the original is refused while a branch needs its history; both stay.
      const first = page.locator(`[data-testid="session-item"][data-session-id="${original}"]`);
      await first.hover();
      await first.locator('[data-testid="delete"]').click();
      await $(page, 'confirm-delete').click();
      const strip = await until(async () => (await $(page, 'error-strip').count()) && (await $(page, 'error-strip').textContent()), 'the refusal');
      assert(strip.includes('delete those branches first'), `the refusal says what to do, got "${strip}"`);
      const listed = (await (await api(base, '/api/sessions')).json()).map((s) => s.id);
      assert(listed.includes(original) && listed.includes(branch), 'both conversations are still there');
      // › opens the branch again.
      await $(page, 'branch-next').click();
      await until(async () => JSON.stringify(await messages(page)) === JSON.stringify(edited), 'the branch again');
    },
  },

  {
    name: 'regenerate a reply: a branch asks the same words again, the first answer stays a ‹ 1/2 › away',
    slug: 'branch-regenerate',
    async run({ page, base, shot }) {
      const original = await chatWith(page, base, 'tell me about tomatoes');
      const before = await messages(page);
      await page.locator('[data-role="assistant"]').hover();
      await $(page, 'regenerate').click();
      const branch = await until(async () => {
        const id = await shownId(page);
        return id !== original && id;
      }, 'the branch to open');
      await until(async () => JSON.stringify(await messages(page)) === JSON.stringify(before) && (await settled(page)), 'the same words asked again, and a reply');
      const log = await activeLog(page, base);
      const inputs = log.filter((e) => e.type === 'input.received');
      assert(inputs.length === 1 && inputs[0].payload.text === 'tell me about tomatoes', `the branch sent the same words once, got ${JSON.stringify(inputs)}`);
      assert(log.some((e) => e.type === 'assistant.message') && log.at(-1).type === 'run.finished', 'the branch has a reply of its own');
      assert(log[0].payload.parent?.session === original, 'the branch leaves the original');
      assert((await $(page, 'branch-position').textContent()) === '2/2', 'the switcher says 2/2');
      const title = await page.locator(`[data-testid="session-item"][data-session-id="${branch}"] [data-testid="session-title"]`).textContent();
      assert(title === 'branch 2', `a regenerated branch is named "branch 2", got "${title}"`);
      await page.screenshot({ path: shot });
      await $(page, 'branch-prev').click();
      await until(async () => (await shownId(page)) === original, 'the original again');
      assert((await $(page, 'branch-position').textContent()) === '1/2', 'the switcher says 1/2');
    },
  },

  {
    name: 'continue after a killed reply: quire serve is killed mid-reply, started again, says the request stopped, and Continue asks the model to go on',
    slug: 'continue-killed',
    async run({ page, shot }) {
      const openLink = async (link) => {
        await page.goto(link, { waitUntil: 'domcontentloaded' });
        await $(page, 'composer').waitFor({ timeout: WAIT_MS });
      };
      const logAt = async (link, id) => {
        const u = new URL(link);
        const r = await fetch(`${u.origin}/api/sessions/${encodeURIComponent(id)}/events?from=0`, {
          headers: { 'Quire-Protocol': VERSION, Authorization: `Bearer ${u.searchParams.get('token')}` },
        });
        return r.json();
      };
      await openLink(FX.killableUrl);
      await send(page, P.slow);
      await until(async () => (await messages(page)).find((m) => m.role === 'assistant' && m.text.length > 8), 'some streamed text');
      const killed = await (await fetch(`${FX.killControl}/kill`, { method: 'POST' })).json();
      assert(killed.killed && killed.link, `quire serve was killed by SIGKILL and started again, got ${JSON.stringify(killed)}`);

      await openLink(killed.link);
      const stopped = await until(async () => (await messages(page)).find((m) => m.role === 'notice' || m.role === 'error'), 'what the page says of the killed request');
      assert(stopped.text === 'Quire stopped before this request finished.', `the sentence of an interrupted request, got "${stopped.text}"`);
      const cut = (await messages(page)).find((m) => m.role === 'assistant')?.text ?? '';
      assert(cut.length > 0 && cut.startsWith('1 2 '), `the part of the reply written before the kill is kept, got "${cut}"`);
      await $(page, 'continue').waitFor({ timeout: WAIT_MS });
      await page.screenshot({ path: shot.replace(/\.png$/, '-stopped.png') });
      await $(page, 'continue').click();
      await until(async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === P.continued), 'the continued reply');
      const shown = await messages(page);
      assert(shown.some((m) => m.role === 'notice' && m.text === 'You asked the model to continue its reply.'), `the continue is shown as a notice, got ${JSON.stringify(shown)}`);
      assert(!shown.some((m) => m.role === 'user' && m.text.startsWith('Your previous reply was cut off')), 'what the model is told is not shown as the user\'s words');
      await until(async () => (await $(page, 'continue').count()) === 0, 'no Continue once the reply completed');
      const id = await shownId(page);
      const log = await logAt(killed.link, id);
      const fins = log.filter((e) => e.type === 'run.finished').map((e) => e.payload.reason);
      assert(JSON.stringify(fins) === JSON.stringify(['interrupted', 'completed']), `the killed run interrupted, then the continue completed; got ${JSON.stringify(fins)}`);
      const cutOff = log.find((e) => e.type === 'assistant.message' && e.payload.interrupted);
      assert(cutOff?.payload?.content?.trim() === cut, `the reply the kill cut off is in the log whole, as the model sees it, got ${JSON.stringify(cutOff?.payload)}`);
      const asked = log.filter((e) => e.type === 'user.message').at(-1);
      assert(asked.payload.kind === 'continue' && asked.payload.text.startsWith('Your previous reply was cut off'), `what the model was told is in the log, got ${JSON.stringify(asked.payload)}`);
    },
  },

  {
    name: 'what the model saw: the inspector shows each call of a reply from the log, and copies the request as quire replay -request N prints it',
    slug: 'inspector',
    async run({ page, context, base, shot }) {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await open(page, base);
      await newChat(page);
      await send(page, P.tool);
      await until(() => settled(page), 'the final reply');
      // After a reload the page knows nothing but the log: the inspector reads Go's.
      await page.reload({ waitUntil: 'domcontentloaded' });
      await $(page, 'composer').waitFor({ timeout: WAIT_MS });
      const reply = page.locator('[data-role="assistant"]').last();
      await reply.locator('[data-testid="inspect"]').click();
      await $(page, 'inspector').waitFor({ timeout: WAIT_MS });
      // The run's two calls (the tool calls, then the answer); the reply's step is open.
      await until(async () => (await $(page, 'inspector-call').count()) === 2, 'the two calls of the run');
      await until(async () => (await $(page, 'inspector-message').count()) >= 4, "the request of the reply's step");
      const log = await activeLog(page, base);
      const sid = log[0].session;
      const user = log.find((e) => e.type === 'user.message' && e.payload.text === P.tool);
      const results = log.filter((e) => e.type === 'tool.result');
      const origins = await $(page, 'inspector-origin').allTextContents();
      assert(origins.includes(`the user's message, from event #${user.seq}`), `the user's message by its seq, got ${JSON.stringify(origins)}`);
      for (const r of results) {
        assert(origins.includes(`tool result of ${r.payload.name}, from event #${r.seq}`), `${r.payload.name}'s result by its seq, got ${JSON.stringify(origins)}`);
      }
      // Against the first call: the reply with the tool calls and the two results are new.
      const diff = await $(page, 'inspector-diff').textContent();
      assert(diff === 'Compared with call 1: 3 messages added.', `the diff, got ${JSON.stringify(diff)}`);
      const came = await $(page, 'inspector-reply').textContent();
      assert(came.includes('Your notes say to water the tomatoes daily.'), `what came back, got ${JSON.stringify(came)}`);
      const tokens = await $(page, 'inspector-tokens').textContent();
      assert(/^about [\d,]+ of 8,192 tokens \(Quire’s estimate\)/.test(tokens), `the size against the window, got ${JSON.stringify(tokens)}`);
      await page.screenshot({ path: shot });

      await $(page, 'inspector-copy').click();
      await until(async () => ((await $(page, 'inspector-copied').textContent()) ?? '').startsWith('Copied'), 'the copy');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      const n = Number(await page.locator('[data-testid="inspector-call"]').last().getAttribute('data-n'));
      const route = await (await api(base, `/api/sessions/${encodeURIComponent(sid)}/calls/${n}/request`)).text();
      assert(copied === route && copied.endsWith('}\n'), `the clipboard holds the request as Go sent it, got ${copied.length} bytes for ${route.length}`);
      const sent = JSON.parse(copied);
      assert(sent.messages.some((m) => m.role === 'tool') && sent.tools.length > 0, 'the copy is the whole request: messages and tools');
      // Go compares it with `quire replay SESSION -request N` after the run (test/e2e/inspector_test.go).
      writeFileSync(FX.inspectPath, JSON.stringify({ session: sid, n, copied }));

      await page.keyboard.press('Escape');
      await until(async () => (await $(page, 'inspector').count()) === 0, 'Esc to close the inspector');
      assert((await $(page, 'stop').count()) === 0 && (await messages(page)).at(-1).role === 'assistant', 'Esc stopped nothing');
    },
  },

  {
    name: 'organise a folder: a batch of scripted workers, its progress and failure, one review (untick, edit, a refusal in words), one apply, files moved, undo as one',
    slug: 'batch-review',
    // The queue's own workers over the fake model (test/e2e/batch_test.go):
    // a, b and c get a proposal, d's worker answers without one.
    async run({ page, base, shot }) {
      const dir = FX.batchDir;
      const at = (p) => existsSync(join(dir, p));
      const disk = (...ps) => ps.map((p) => `${p}:${at(p) ? 'yes' : 'no'}`).join(' ');
      await useNotes(base, dir);
      await open(page, base);
      await $(page, 'batches-open').click();
      await $(page, 'batch-folder').fill('inbox');
      await $(page, 'batch-start').click();
      const view = $(page, 'batch-view');
      await view.waitFor({ timeout: WAIT_MS });
      // Every task ends: three proposals, one failure with its reason, and the review.
      await until(async () => (await view.getAttribute('data-state')) === 'reviewing', 'the batch waiting for its review');
      assert((await $(page, 'batch-progress').textContent()).trim() === '4 of 4 notes · 1 failed', `the count, got ${await $(page, 'batch-progress').textContent()}`);
      const failure = (await $(page, 'batch-failure').textContent()).trim();
      assert(failure.startsWith('inbox/d.md: ') && failure.includes('without a proposal'), `the failure with its reason, got "${failure}"`);
      assert(disk('inbox/a.md', 'inbox/b.md', 'inbox/c.md') === 'inbox/a.md:yes inbox/b.md:yes inbox/c.md:yes', 'nothing moved before the yes');

      // Each note's worker has a session of its own, shown from the batch.
      const workers = page.locator('[data-testid="batch-worker"]');
      await until(async () => (await workers.count()) === 4, "four workers' sessions in the batch view");
      const workerIds = new Set(await workers.evaluateAll((els) => els.map((e) => e.dataset.session)));

      // A reload finds the batch where it is, the review list whole.
      await page.reload({ waitUntil: 'domcontentloaded' });
      await until(async () => (await $(page, 'batches-waiting').count()) === 1, 'the sidebar marks the batch waiting');
      // The workers' sessions are not the user's chats: not in the list, not
      // opened as the newest, not found by the search over what was said.
      const listedChats = await page.locator('[data-testid="session-item"]').evaluateAll((els) =>
        els.map((e) => `${e.dataset.sessionId} ${e.querySelector('[data-testid="session-title"]')?.textContent ?? ''}`));
      assert(listedChats.every((c) => !workerIds.has(c.split(' ')[0]) && !c.includes('Organise inbox/')), `no worker in the chat list, got ${JSON.stringify(listedChats)}`);
      const heading = (await page.locator('h1.title').textContent()).trim();
      assert(!heading.startsWith('Organise inbox/'), `the chat opened is not a worker's, got "${heading}"`);
      await page.keyboard.press('Control+k');
      await $(page, 'search-input').fill('Organise the note');
      await $(page, 'search-none').waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'search-hit').count()) === 0, "the search finds no worker's words");
      await page.keyboard.press('Escape');
      await $(page, 'search-palette').waitFor({ state: 'detached', timeout: WAIT_MS });
      await $(page, 'batches-open').click();
      const rows = page.locator('[data-testid="review-row"]');
      await until(async () => (await rows.count()) === 3, 'three rows after the reload');
      // "See what the assistant did": the worker's session, read-only in the inspector.
      await $(page, 'batch-workers').locator('summary').click();
      await workers.filter({ has: page.locator('text=inbox/a.md') }).locator('[data-testid="batch-worker-open"]').click();
      const calls = page.locator('[data-testid="inspector-call"]');
      await until(async () => (await calls.count()) >= 1, "the worker's model calls in the inspector");
      await until(async () => ((await page.locator('[data-testid="inspector"]').textContent()) ?? '').includes('Organise the note inbox/a.md'), "the worker's task in what the model saw");
      await page.screenshot({ path: shot.replace(/\.png$/, '-worker.png') });
      await $(page, 'inspector-close').click();
      await $(page, 'inspector').waitFor({ state: 'detached', timeout: WAIT_MS });
      assert((await $(page, 'batches-dialog').count()) === 1, 'closing the inspector leaves the drawer open');
      const listed = await rows.evaluateAll((els) => els.map((e) => `${e.dataset.from}→${e.dataset.to}:${e.dataset.selected}`));
      assert(JSON.stringify(listed) === JSON.stringify(['inbox/a.md→projects/a.md:true', 'inbox/b.md→journal/b.md:true', 'inbox/c.md→people/c.md:true']),
        `every proposal, ticked, got ${JSON.stringify(listed)}`);
      assert((await rows.nth(0).locator('[data-testid="review-reason"]').textContent()).trim() === 'a project idea', "the worker's reason");
      assert((await rows.nth(0).locator('[data-testid="review-tag"]').textContent()).trim() === '#idea', 'the tag');
      assert((await $(page, 'review-apply').textContent()).trim() === 'Apply 3 changes', 'one button for the batch');

      // Untick b; a destination outside the notes folder is refused on the page…
      await rows.nth(1).locator('[data-testid="review-tick"]').uncheck();
      assert((await $(page, 'review-apply').textContent()).trim() === 'Apply 2 changes', 'the count follows the ticks');
      const to = rows.nth(2).locator('[data-testid="review-to"]');
      await to.fill('../outside.md');
      await until(async () => ((await rows.nth(2).locator('[data-testid="review-problem"]').textContent()) ?? '').includes('leaves your notes folder'), 'the page refuses ../');
      assert(await $(page, 'review-apply').isDisabled(), 'no apply while a destination is refused');
      // …and one onto a note outside the batch by Quire, in words, with nothing changed.
      await to.fill('archive/old.md');
      await $(page, 'review-apply').click();
      await $(page, 'confirm-delete').click();
      const error = $(page, 'batch-error');
      await error.waitFor({ timeout: WAIT_MS });
      const said = (await error.textContent()).trim();
      assert(said.startsWith('The batch could not be applied') && said.includes('nothing was changed') && said.includes('archive/old.md'), `Quire's refusal in words, got "${said}"`);
      assert(disk('inbox/a.md', 'projects/a.md', 'archive/old.md') === 'inbox/a.md:yes projects/a.md:no archive/old.md:yes', `nothing changed after the refusal: ${disk('inbox/a.md', 'projects/a.md')}`);

      // The one yes: its confirm lists every change it approves.
      await until(async () => (await view.getAttribute('data-state')) === 'reviewing', 'back to the review');
      await to.fill('people/carol.md');
      await $(page, 'review-apply').click();
      const lines = await page.locator('[data-testid="confirm-lines"] li').allTextContents();
      assert((await page.locator('#confirm-title').textContent()).trim() === 'Apply these 2 changes to your notes?', 'the count in the confirm');
      assert(JSON.stringify(lines) === JSON.stringify(['inbox/a.md → projects/a.md · tags: idea', 'inbox/c.md → people/carol.md · links: inbox/a.md']),
        `every change in the confirm, got ${JSON.stringify(lines)}`);
      // The confirm fades in: its picture once it has.
      await $(page, 'confirm-dialog').evaluate((el) => Promise.all(el.parentElement.getAnimations().map((a) => a.finished)));
      await page.screenshot({ path: shot.replace(/\.png$/, '-confirm.png') });
      const applies = recordPosts(page, /\/apply$/);
      await $(page, 'confirm-delete').click();
      await until(async () => (await view.getAttribute('data-state')) === 'done', 'the batch applied');
      assert(applies.length === 1, `one apply, got ${applies.length}`);
      assert(disk('inbox/a.md', 'projects/a.md', 'inbox/b.md', 'journal/b.md', 'inbox/c.md', 'people/carol.md', 'inbox/d.md') ===
        'inbox/a.md:no projects/a.md:yes inbox/b.md:yes journal/b.md:no inbox/c.md:no people/carol.md:yes inbox/d.md:yes', `files as decided: ${disk('projects/a.md', 'inbox/b.md', 'people/carol.md')}`);
      assert(readFileSync(join(dir, 'projects/a.md'), 'utf8').includes('idea'), 'the tag written');
      assert(readFileSync(join(dir, 'people/carol.md'), 'utf8').includes('projects/a.md'), 'the link follows the note it names');
      assert((await $(page, 'batch-state').textContent()).trim() === 'Done: 2 notes changed', 'the batch says what it did');
      await page.screenshot({ path: shot });

      // Undo this batch: one click, a confirm listing what it reverses (said No to here)…
      await $(page, 'batch-undo').click();
      const back = await page.locator('[data-testid="confirm-lines"] li').allTextContents();
      assert(back.includes('projects/a.md → inbox/a.md') && back.includes('people/carol.md → inbox/c.md'), `the undo lists the moves back, got ${JSON.stringify(back)}`);
      await $(page, 'confirm-cancel').click();
      assert((await view.getAttribute('data-state')) === 'done', 'No undoes nothing');
      const batchId = await view.getAttribute('data-id');

      // …and "Changes by Quire" lists the applied batch as one entry, undone from there as one.
      await $(page, 'batches-close').click();
      await $(page, 'notes-open').click();
      await $(page, 'notes-panel').waitFor({ timeout: WAIT_MS });
      await $(page, 'changes-tab').click();
      const entry = page.locator(`[data-testid="change-batch"][data-id="${batchId}"]`);
      await entry.waitFor({ timeout: WAIT_MS });
      assert((await entry.getAttribute('data-state')) === 'done', `the batch listed as applied, got ${await entry.getAttribute('data-state')}`);
      const what = (await entry.locator('[data-testid="change-batch-lines"]').textContent()) ?? '';
      assert(what.includes('inbox/a.md → projects/a.md') && what.includes('inbox/c.md → people/carol.md') && !what.includes('inbox/b.md'), `what the batch changed, got ${JSON.stringify(what)}`);
      const first = page.locator('[data-testid="change"], [data-testid="change-batch"]').first();
      assert((await first.getAttribute('data-id')) === batchId, 'the batch, the newest change, comes first');
      await page.screenshot({ path: shot.replace(/\.png$/, '-changes.png') });
      await entry.locator('[data-testid="change-batch-undo"]').click();
      const reverses = await page.locator('[data-testid="confirm-lines"] li').allTextContents();
      assert(reverses.includes('projects/a.md → inbox/a.md') && reverses.includes('people/carol.md → inbox/c.md'), `the confirm lists what it reverses, got ${JSON.stringify(reverses)}`);
      await $(page, 'confirm-delete').click();
      await until(async () => (await entry.getAttribute('data-state')) === 'undone', 'the batch undone from the Changes list');
      assert(disk('inbox/a.md', 'projects/a.md', 'inbox/c.md', 'people/carol.md') === 'inbox/a.md:yes projects/a.md:no inbox/c.md:yes people/carol.md:no', 'the notes back');
      assert(readFileSync(join(dir, 'inbox/a.md'), 'utf8') === '# A\n\nAn idea for a project.\n', 'a.md as it was');
      assert((await entry.locator('[data-testid="change-batch-undo"]').count()) === 0, 'nothing left to undo');
      await $(page, 'notes-close').click();
      await $(page, 'batches-open').click();
      await until(async () => (await $(page, 'batch-view').getAttribute('data-state')) === 'undone', 'the batch view says undone');
    },
  },

  {
    name: 'evolution: a candidate written by the user, its diff and its eval report (the scenario it breaks first, in red, ticked before Approve), approved, activated for every conversation (the next request carries it), rolled back (the next does not)',
    slug: 'evolution',
    async run({ page, base, shot }) {
      const rule = 'Receipts are filed under finance/receipts/YYYY.';
      const json = { 'Content-Type': 'application/json' };
      const made = await api(base, '/api/evolution', { method: 'POST', headers: json, body: JSON.stringify({ name: 'receipts', kind: 'prompt', artifact: { prompt: { text: rule } }, origin: { runs: [], signals: [] } }) });
      const body = await made.text();
      assert(made.status === 201, `the candidate proposed, got ${made.status} ${body}`);
      const { id } = JSON.parse(body);
      // What the model is sent in a new chat's first request (the inspector's route).
      const firstRequest = async (title) => {
        const post = (path, body) => api(base, path, { method: 'POST', headers: { ...json, 'Idempotency-Key': `e2e-${Math.random().toString(16).slice(2)}` }, body: JSON.stringify(body) });
        const s = await (await post('/api/sessions', { title })).json();
        const path = `/api/sessions/${encodeURIComponent(s.id)}`;
        assert((await post(`${path}/messages`, { text: 'where do receipts go?' })).status === 202, 'the message accepted');
        await until(async () => (await (await api(base, `${path}/events?from=0`)).json()).some((e) => e.type === 'run.finished'), `the run of ${title}`);
        return (await api(base, `${path}/calls/1/request`)).text();
      };

      await open(page, base);
      await $(page, 'evolution-open').click();
      const item = page.locator(`[data-testid="candidate-item"][data-candidate-id="${id}"]`);
      await item.waitFor({ timeout: WAIT_MS });
      await item.click();
      const detail = $(page, 'candidate-detail');
      await detail.waitFor({ timeout: WAIT_MS });
      assert(((await $(page, 'candidate-diff').textContent()) ?? '').includes(`+ ${rule}`), 'the diff adds the rule (nothing of it is active)');
      assert((await item.locator('[data-testid="candidate-state"]').textContent()).startsWith('Proposed'), 'proposed, not evaluated');

      // The isolated evaluation: three scenarios with and without it, the broken one first, in red.
      await $(page, 'candidate-evaluate').click();
      const report = $(page, 'candidate-report');
      await report.waitFor({ timeout: 60000 });
      const rows = await report.locator('tbody tr').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-testid')} ${e.querySelector('td')?.textContent?.trim()}`));
      assert(rows.length === 3 && rows[0].startsWith('report-regression zz-receipts-stay-put'), `the regression first, got ${JSON.stringify(rows)}`);
      assert(rows.slice(1).every((r) => r.startsWith('report-row')), `the other two pass both ways, got ${JSON.stringify(rows)}`);
      // The theme's own danger colour (light or dark: an earlier case may
      // have switched the theme), read off a probe styled with it.
      const [red, danger, plain] = await $(page, 'report-regression').evaluate((el) => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--danger)';
        el.appendChild(probe);
        const want = getComputedStyle(probe).color;
        probe.remove();
        return [getComputedStyle(el).color, want, getComputedStyle(document.body).color];
      });
      assert(red === danger && red !== plain, `the regression in the theme's danger colour ${danger}, got ${red} (text ${plain})`);
      const approve = $(page, 'candidate-approve');
      assert(await approve.isDisabled(), 'Approve waits for the regression to be ticked');
      await page.screenshot({ path: shot.replace(/\.png$/, '-report.png') });
      await $(page, 'accept-regression').check();
      await until(async () => !(await approve.isDisabled()), 'Approve once the regression is ticked');
      await approve.click();
      assert(((await $(page, 'confirm-dialog').textContent()) ?? '').includes('You accept that it breaks zz-receipts-stay-put.'), 'the confirm names what the user accepts');
      await $(page, 'confirm-delete').click();
      await until(async () => (await item.locator('[data-testid="candidate-state"]').textContent()).startsWith('Approved'), 'approved');
      const approved = (await (await api(base, `/api/evolution/${id}`)).json()).candidate;
      assert(JSON.stringify(approved.approval?.accepted) === JSON.stringify(['zz-receipts-stay-put']), `the approval names the regression, got ${JSON.stringify(approved.approval)}`);
      assert(!(await firstRequest('before activation')).includes(rule), 'approved is not active: the request does not carry it');

      // Activated for every conversation: the next request carries it.
      await $(page, 'candidate-scope').selectOption('all');
      await $(page, 'candidate-activate').click();
      await $(page, 'confirm-delete').click();
      await until(async () => (await item.locator('[data-testid="candidate-state"]').textContent()) === 'Active in every conversation', 'active everywhere');
      await $(page, 'candidate-monitor').waitFor({ timeout: WAIT_MS });
      assert((await firstRequest('while active')).includes(rule), 'the next request carries the rule');
      await page.screenshot({ path: shot });

      // Roll back: one click and a yes; the next request does not carry it.
      await $(page, 'candidate-rollback').click();
      await $(page, 'confirm-delete').click();
      await until(async () => (await item.locator('[data-testid="candidate-state"]').textContent()) === 'Rolled back', 'rolled back');
      assert(!(await firstRequest('after rollback')).includes(rule), 'after the rollback the request does not carry it');
      await $(page, 'evolution-close').click();
    },
  },

  {
    name: 'reading comfort: highlighted code with copy buttons, the shortcuts and their help, the sidebar toggle, a long chat drawn in part with Jump to latest',
    slug: 'comfort',
    async run({ page, context, base, shot }) {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await open(page, base);
      await newChat(page);
      const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

      // A reply with a Go code block: coloured by highlight.js, with its own copy button.
      const code = 'func main() {\n\tfmt.Println("<b>hi</b>")\n}';
      await send(page, 'code:\n```go\n' + code + '\n```');
      await until(() => settled(page), 'the reply with the code block');
      const block = page.locator('[data-role="assistant"] .code-block');
      assert((await block.locator('pre code.hljs.language-go span.hljs-keyword').count()) > 0, 'the Go keywords are highlighted');
      assert((await block.locator('pre b').count()) === 0, 'markup inside the code stays text');
      await block.hover();
      await block.locator('[data-copy-code]').click();
      await until(async () => (await clipboard()) === code + '\n', 'the code on the clipboard');
      await page.locator('[data-role="assistant"] [data-testid="copy-message"]').click();
      await until(async () => (await clipboard()) === 'You said: code:\n```go\n' + code + '\n```', 'the reply as Markdown on the clipboard');
      await page.locator('[data-role="user"] [data-testid="copy-message"]').click();
      await until(async () => (await clipboard()) === 'code:\n```go\n' + code + '\n```', 'the message on the clipboard');

      // Up in the empty composer opens the last message's own editor (a resend there is a branch).
      await $(page, 'composer').focus();
      await page.keyboard.press('ArrowUp');
      await $(page, 'edit-input').waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'edit-input').inputValue()) === 'code:\n```go\n' + code + '\n```', 'Up opens the last message to edit');
      await $(page, 'edit-cancel').click();
      await until(async () => (await $(page, 'edit-input').count()) === 0, 'the editor closed');

      // "?" (outside a text field) lists every shortcut; Esc closes it.
      await page.locator('.header .title').click();
      await page.keyboard.press('Shift+?');
      const help = $(page, 'shortcut-help');
      await help.waitFor({ timeout: WAIT_MS });
      const ids = await help.locator('[data-testid="shortcut"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
      for (const id of ['stop', 'new-chat', 'settings', 'search', 'sidebar', 'help', 'edit-last']) assert(ids.includes(id), `the help lists ${id}, got ${JSON.stringify(ids)}`);
      await page.screenshot({ path: shot });
      await page.keyboard.press('Escape');
      await until(async () => (await help.count()) === 0, 'the help to close on Esc');

      // Ctrl+N opens a new chat; Ctrl+B hides the list of chats, remembered across a reload.
      const before = await $(page, 'session-item').count();
      await page.keyboard.press('Control+n');
      await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"]').count()) === 0, 'a new chat draft from Ctrl+N (no chat active)');
      assert((await $(page, 'session-item').count()) === before, 'Ctrl+N makes no chat before its first message');
      await page.keyboard.press('Control+b');
      await until(async () => (await $(page, 'session-item').count()) === 0, 'the sidebar hidden');
      await page.reload({ waitUntil: 'domcontentloaded' });
      await $(page, 'composer').waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'sidebar-toggle').getAttribute('aria-expanded')) === 'false', 'still hidden after a reload');
      await $(page, 'sidebar-toggle').click();
      await $(page, 'session-item').first().waitFor({ timeout: WAIT_MS });

      // A long chat: 32 turns of tall messages sent through the API, then opened.
      const post = (path, body) =>
        api(base, path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `e2e-${Math.random().toString(16).slice(2)}` }, body: body && JSON.stringify(body) });
      const long = await (await post('/api/sessions', { title: 'a long chat' })).json();
      const path = `/api/sessions/${encodeURIComponent(long.id)}`;
      const finished = async () => (await (await api(base, `${path}/events?from=0`)).json()).filter((e) => e.type === 'run.finished').length;
      const TURNS = 32;
      for (let i = 1; i <= TURNS; i++) {
        const r = await post(`${path}/messages`, { text: `line ${i}\n` + 'x\n'.repeat(8) });
        assert(r.status === 202, `turn ${i} accepted, got ${r.status}`);
        await until(async () => (await finished()) === i, `turn ${i} answered`).catch(async (e) => {
          const tail = (await (await api(base, `${path}/events?from=0`)).json()).slice(-5);
          throw new Error(`${e.message}; the log ends ${tail.map((x) => `${x.type} ${JSON.stringify(x.payload).slice(0, 120)}`).join(' | ')}`);
        });
      }
      await page.locator(`[data-session-id="${long.id}"] .select`).click();
      await until(async () => (await messages(page)).some((m) => m.text.startsWith(`You said: line ${TURNS}`)), 'the last reply at the bottom');
      const drawn = await $(page, 'message').count();
      assert(drawn <= TURNS, `only the items near the screen are drawn, got ${drawn} of ${TURNS * 2}`);
      assert((await $(page, 'jump-latest').count()) === 0, 'no Jump to latest at the bottom');

      // Scrolled to the top: the first turn is drawn, the bottom is not; Jump to latest takes the reader back.
      const scroller = page.locator('.scroller');
      // Each try scrolls up again: the heights measured on the way move the top.
      const top = await until(async () => {
        await scroller.evaluate((el) => (el.scrollTop = 0));
        const m = await messages(page);
        return m.some((x) => x.role === 'user' && x.text.startsWith('line 1\n')) && m;
      }, 'the first turn drawn at the top');
      assert(!top.some((m) => m.text.startsWith(`You said: line ${TURNS}`)), 'the last reply is not drawn up there');
      await $(page, 'jump-latest').waitFor({ timeout: WAIT_MS });
      // A new turn while scrolled up is counted on the button.
      await post(`${path}/messages`, { text: 'one more' });
      await until(async () => ((await $(page, 'jump-count').textContent().catch(() => '')) ?? '').includes('new'), 'the count of new messages');
      await $(page, 'jump-latest').click();
      await until(async () => (await messages(page)).some((m) => m.text === 'You said: one more'), 'the newest reply after Jump to latest');
      await until(async () => (await $(page, 'jump-latest').count()) === 0, 'the button gone at the bottom');
    },
  },

  {
    // The MCP server is test/mcptest's, over stdio: the test binary run
    // again (test/e2e/mcp_test.go); its record tool is destructive.
    name: 'an MCP server added in Settings: its tools with their effects, a call of its write tool asked with the server, the tool and the full arguments, then its answer in the conversation',
    slug: 'mcp-tool',
    async run({ page, base, shot }) {
      const M = FX.mcp;
      await open(page, base);
      await newChat(page);
      await page.keyboard.press('Control+,');
      await $(page, 'mcp-settings').waitFor({ timeout: WAIT_MS });
      await $(page, 'mcp-add-open').click();
      await $(page, 'mcp-add-name').fill(M.name);
      await $(page, 'mcp-add-command').fill(M.command);
      await $(page, 'mcp-add-args').fill(M.args.join('\n'));
      await $(page, 'mcp-add-env').fill(M.env);
      await $(page, 'mcp-add-save').click();
      const server = page.locator(`[data-testid="mcp-server"][data-name="${M.name}"]`);
      await page.locator(`[data-testid="mcp-server"][data-name="${M.name}"][data-state="running"]`).waitFor({ timeout: WAIT_MS });
      assert(((await server.locator('[data-testid="mcp-state"]').textContent()) ?? '').trim() === 'Running', 'the badge says Running');
      const effects = async (name) => ((await server.locator(`[data-testid="mcp-tool"][data-name="${name}"] [data-testid="mcp-tool-effects"]`).textContent()) ?? '').trim();
      assert((await effects(`${M.name}__record`)) === 'Can change things — asks first', `record's effects: ${await effects(`${M.name}__record`)}`);
      assert((await effects(`${M.name}__echo`)) === 'Reads only', `echo's effects: ${await effects(`${M.name}__echo`)}`);
      assert(/\d+ tokens/.test((await server.locator('[data-testid="mcp-tokens"]').textContent()) ?? ''), 'the declarations\' cost is shown');
      const listed = (await (await api(base, '/api/mcp')).json()).servers.find((s) => s.config.name === M.name);
      assert(listed?.state === 'running' && listed.tools.length === 5, `the host lists it running with its five tools: ${JSON.stringify(listed?.state)}`);
      await server.scrollIntoViewIfNeeded();
      await page.screenshot({ path: shot });
      await page.keyboard.press('Escape');
      await until(async () => (await $(page, 'settings-panel').count()) === 0, 'Settings closed');

      await send(page, M.prompt);
      const question = page.locator('[data-testid="permission"][data-state="open"]');
      await question.waitFor({ timeout: WAIT_MS });
      const asked = (await question.textContent()) ?? '';
      for (const want of [`${M.name}__record`, `the MCP server ${M.name}`, M.text]) {
        assert(asked.includes(want), `the question shows ${want}: ${asked}`);
      }
      assert(!existsSync(M.record), 'nothing is recorded before the yes');
      await page.screenshot({ path: shot.replace(/\.png$/, '-question.png') });
      await $(page, 'permission-allow').click();
      await until(async () => (await toolCards(page))[0]?.status === 'done', 'the call ran');
      await until(() => settled(page), 'the final reply');
      const msgs = await messages(page);
      assert(msgs.at(-1).text === `The garden server answered: recorded: ${M.text}`, `the reply carries the server's answer: ${JSON.stringify(msgs.at(-1))}`);
      assert(readFileSync(M.record, 'utf8') === `${M.text}\n`, 'the server recorded the text once');
      await page.screenshot({ path: shot.replace(/\.png$/, '-answered.png') });
    },
  },
  {
    name: 'Settings → Skills: the shipped skills are listed with their source, one turned off is gone from the next request (the other still listed by name and description, never its instructions), and a folder that is not a skill is refused in words',
    slug: 'skills-settings',
    async run({ page, base }) {
      const text = async (id) => ((await $(page, id).textContent()) ?? '').trim();
      const toggle = (name, on) =>
        api(base, `/api/skills/${name}/enabled`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ enabled: on }) });
      await useNotes(base); // the shipped skills need a notes folder
      try {
        await open(page, base);
        await newChat(page);
        await page.keyboard.press('Control+,');
        await $(page, 'settings-panel').waitFor({ timeout: WAIT_MS });
        await $(page, 'skill-weekly-review').waitFor({ timeout: WAIT_MS });
        assert((await $(page, 'skill-weekly-review').getAttribute('data-state')) === 'on', 'weekly-review is on');
        assert((await text('skill-meeting-notes')).includes('Shipped with Quire'), `where meeting-notes comes from: ${await text('skill-meeting-notes')}`);

        await $(page, 'skill-toggle-weekly-review').uncheck();
        await until(async () => (await $(page, 'skill-weekly-review').getAttribute('data-state')) === 'off', 'weekly-review shown off');
        const listed = await (await api(base, '/api/skills')).json();
        assert(listed.skills.find((s) => s.name === 'weekly-review')?.enabled === false, 'the host holds weekly-review off');

        await $(page, 'skill-install-dir').fill(FX.notesDir);
        await $(page, 'skill-install').click();
        await until(async () => (await $(page, 'skills-error').count()) === 1 && (await text('skills-error')).includes('no SKILL.md'), 'the refusal of a folder that is not a skill');

        await page.keyboard.press('Escape');
        await until(async () => (await $(page, 'settings-panel').count()) === 0, 'the screen closed');
        await send(page, P.stream);
        await until(() => settled(page), 'the reply');
        const id = await activeId(page);
        const r = await api(base, `/api/sessions/${encodeURIComponent(id)}/calls/1/request`);
        assert(r.status === 200, `the request, got ${r.status}`);
        const sent = await r.text();
        assert(sent.includes('- meeting-notes: Turn a pasted meeting transcript'), 'meeting-notes is listed by its description');
        assert(!sent.includes('- weekly-review:'), 'weekly-review, turned off, is not listed');
        assert(sent.includes('load_skill') && !sent.includes('Find the notes the meeting mentions'), 'load_skill is offered, the instructions are not sent');
      } finally {
        await toggle('weekly-review', true); // the cases after this one see the shipped skills on
      }
    },
  },

  // Lane runner (issue 34): one block, kept at the end.
  {
    name: 'Settings → Model runner: an OpenAI-compatible server typed by address is saved without a restart and its models listed with what each can do; an address on another machine needs the box that says conversations leave the laptop, and Quire refuses it without',
    slug: 'settings-runner',
    async run({ page, base, shot }) {
      const text = async (id) => ((await $(page, id).textContent()) ?? '').trim();
      const held = async () => (await (await api(base, '/api/settings')).json()).settings;
      const before = await held();
      try {
        await open(page, base);
        await newChat(page);
        await page.keyboard.press('Control+,');
        await $(page, 'settings-runner').waitFor({ timeout: WAIT_MS });
        assert(await $(page, 'settings-runner-ollama').isChecked(), 'Ollama is the runner at first');
        const ollama = await $(page, 'settings-host').inputValue();

        // The fake serves the OpenAI-compatible API at /v1, as llama.cpp does.
        await $(page, 'settings-runner-other').check();
        await $(page, 'settings-runner-url').fill(`${ollama}/v1`);
        await $(page, 'settings-runner-pending').waitFor({ timeout: WAIT_MS });
        assert((await $(page, 'settings-runner-remote-box').count()) === 0, 'no question for this computer');
        await $(page, 'settings-save').click();
        await $(page, 'settings-runner-models').waitFor({ timeout: WAIT_MS });
        const saved = await held();
        assert(saved.runner === 'openai' && saved.runnerUrl === `${ollama}/v1`, `the host holds ${JSON.stringify(saved)}`);
        const chat = page.locator(`[data-testid="settings-runner-model"][data-model="${saved.model}"]`);
        const says = ((await chat.locator('[data-testid="settings-runner-model-says"]').textContent()) ?? '').trim();
        assert(/^Context: [\d,]+ tokens \(from the server's model list\)\. Takes tools\.$/.test(says), `what the chat model can do: ${says}`);
        assert((await chat.getAttribute('data-tools')) === 'yes', 'the tool probe said yes');
        await page.screenshot({ path: shot });

        // Another machine: asked in the screen, refused by Quire without the choice.
        await $(page, 'settings-runner-url').fill('http://192.0.2.7:1234/v1');
        await until(async () => (await text('settings-runner-remote-box')).includes('would leave this laptop'), 'the question for another machine');
        await $(page, 'settings-save').click();
        await until(async () => (await text('settings-error-runnerUrl')).includes('another machine'), 'the refusal by its field');
        assert((await held()).runnerUrl === `${ollama}/v1`, 'a refused address saves nothing');
        await page.screenshot({ path: shot.replace(/\.png$/, '-remote.png') });
      } finally {
        // The cases after this one talk to Ollama's own API.
        const r = await api(base, '/api/settings', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...(await held()), runner: before.runner, runnerUrl: before.runnerUrl, runnerRemote: false }),
        });
        assert(r.status === 200, `the runner put back, got ${r.status}`);
      }
    },
  },

  // Lane tasks (issue 33): the Standing tasks panel, over /api/standing.
  {
    name: 'standing tasks: one added in the panel with its schedule and instruction, paused and resumed at once, a bad time refused in words, removed',
    slug: 'standing-tasks',
    async run({ page, base, shot }) {
      await open(page, base);
      await $(page, 'standing-open').click();
      await $(page, 'standing-dialog').waitFor({ timeout: WAIT_MS });
      await $(page, 'standing-name').fill('File the inbox');
      await $(page, 'standing-folder').fill('inbox');
      await $(page, 'standing-instruction').fill('Receipts go under finance/receipts');
      await $(page, 'standing-kind').selectOption('weekly');
      await $(page, 'standing-weekday').selectOption('friday');
      await $(page, 'standing-at').fill('17:30');
      await $(page, 'standing-save').click();
      const rows = page.locator('[data-testid="standing-list"] > li');
      await until(async () => (await rows.count()) === 1, 'the task listed');
      const row = rows.first();
      const text = (await row.textContent()) ?? '';
      assert(text.includes('every friday at 17:30') && text.includes('Not fired yet.'), `its schedule and last run, got "${text}"`);
      assert((await row.locator('[data-testid="standing-next"]').count()) === 1, 'its next run');
      const listed = await (await api(base, '/api/standing')).json();
      assert(listed.length === 1 && listed[0].task.instruction === 'Receipts go under finance/receipts' && listed[0].task.schedule.weekday === 'friday',
        `the host holds the task, got ${JSON.stringify(listed)}`);
      await page.screenshot({ path: shot });

      await row.locator('[data-testid="standing-pause"]').click();
      await until(async () => (await row.getAttribute('data-paused')) === 'true', 'the task paused');
      assert((await (await api(base, '/api/standing')).json())[0].task.paused === true, 'the host holds it paused');
      await row.locator('[data-testid="standing-pause"]').click();
      await until(async () => (await row.getAttribute('data-paused')) === 'false', 'the task resumed');

      // A time that is none is refused by Quire, in words, and nothing is added.
      await $(page, 'standing-name').fill('Bad');
      await $(page, 'standing-kind').selectOption('daily');
      await $(page, 'standing-at').fill('');
      await $(page, 'standing-save').click();
      await until(async () => ((await $(page, 'standing-error').textContent().catch(() => '')) ?? '').includes('HH:MM'), 'the refusal of a bad time');
      assert((await rows.count()) === 1, 'nothing added');

      await row.locator('[data-testid="standing-remove"]').click();
      await until(async () => (await rows.count()) === 0, 'the task removed');
      assert((await (await api(base, '/api/standing')).json()).length === 0, 'the host holds none');
    },
  },
];
