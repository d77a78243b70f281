// What the e2e cases share (the cases are in cases/*.mjs, in the order
// cases.mjs lists them): the fixtures, the helpers and the fake window.
//
// The e2e cases run against the real backend (test/e2e/browser_test.go:
// `quire serve`'s handler, the real runtime and SQLite, the fake Ollama
// server). Each gets a fresh browser context at 1280x800; the backend is one
// for the whole run, so a case opens a chat of its own and sets up what it
// needs (the notes folder, the documents) through the API. The fake model
// answers the prompts in QUIRE_E2E_FIXTURES as test/e2e/script_test.go
// scripts them and echoes the rest ("You said: …").
//
// The "inside Wails" cases replace window.go and window.runtime with
// fakeWails, a stand-in for the window's bindings (host/window): no HTTP backend can produce
// Wails bindings, and the real window is tested under Xvfb (test/desktop).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';

/** What the backend's Go side made for the cases (browser_test.go fixtures). */
export const FX = (() => {
  const raw = process.env.QUIRE_E2E_FIXTURES;
  return raw ? JSON.parse(raw) : { prompts: {} };
})();
export const P = FX.prompts;
/**
 * Each quire serve's printed link, by origin: the browser opens it (its
 * secret becomes the page's HttpOnly cookie) and Node-side calls send the
 * secret as a bearer token, as a client that is not a browser does.
 */
export const LINKS = new Map([process.env.QUIRE_E2E_URL, FX.downUrl, FX.firstUrl].filter(Boolean).map((l) => [new URL(l).origin, l]));
export const secretOf = (base) => new URL(LINKS.get(base) ?? base).searchParams.get('token') ?? '';
/** The second quire serve, whose Ollama is not running. */
export const DOWN = FX.downUrl ? new URL(FX.downUrl).origin : '';
/** The third quire serve, a new user's: Ollama runs, with no model installed (qwen3:4b can be pulled). */
export const FIRST = FX.firstUrl ? new URL(FX.firstUrl).origin : '';
export const VERSION = '1.0';
export const CITE_REPLY = P.citeReply;
/** Go's sentences (library/errors.go), as the page shows them. */
export const NOT_INDEXED = 'this file is not in the document index; drop it on the window to add it';
export const NO_SUCH_PATH = 'there is no such file or folder; check the path';
export const RELATIVE_PATH = 'give the full path, like /home/you/Documents';
/** Go's sentence (memory.checkText) for an empty memory text. */
export const MEMORY_EMPTY = 'The memory text is empty: write the fact or preference to remember.';

export const WAIT_MS = 15000;

/** Node-side call to the API, with the protocol header and the secret every /api/ request needs. */
export function api(base, path, { headers, ...init } = {}) {
  return fetch(base + path, { ...init, headers: { 'Quire-Protocol': VERSION, Authorization: `Bearer ${secretOf(base)}`, ...headers } });
}

/** Node-side call to an operation of the ports: POST /api/op/<name> with the arguments as a JSON array. */
export function callOp(base, name, ...args) {
  return api(base, `/api/op/${encodeURIComponent(name)}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(args) });
}

/** Polls `fn` until it returns a truthy value; fails with `what` and the last value. */
export async function until(fn, what, timeout = WAIT_MS) {
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

/**
 * Waits until the element `id` says `text` (a sentence, a refusal) and
 * returns all it says: the one way a case waits for what the page says.
 */
export function untilSays(page, id, text, what) {
  return until(async () => {
    const said = (await $(page, id).textContent()) ?? '';
    return said.includes(text) && said;
  }, what);
}

/** Waits until the element `id` says anything (an error strip, a refusal) and returns it. */
export function saidIn(page, id, what) {
  return until(async () => (await $(page, id).count()) > 0 && (await $(page, id).first().textContent()), what);
}

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

/**
 * A server of another origin (another port of 127.0.0.1, so the same site):
 * a page with no policy of its own, and every connection and request it
 * hears. It stands for a server off the laptop, and for another page on
 * this machine.
 */
export async function otherOrigin() {
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

export const $ = (page, id) => page.locator(`[data-testid="${id}"]`);

/** Opens the printed link, as the user does; it lands on the bare address. */
export async function open(page, base) {
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
export function messages(page) {
  return page.$$eval('[data-testid="message"]', (els) =>
    els.map((el) => ({ role: el.getAttribute('data-role'), text: (el.querySelector('[data-part="body"]') ?? el).textContent.trim() })),
  );
}

/** The first-run hint's words (NotesHint.svelte). */
export const HINT = 'Choose the folder of your notes so Quire can read and organise them. Quire asks before it changes anything.';

/** The sidebar's notes folder row: {name, title (the full path), button}. */
export function notesRow(page) {
  return page.evaluate(() => {
    const row = document.querySelector('[data-testid="notes-folder"]');
    const name = row?.querySelector('[data-testid="notes-folder-name"]');
    return {
      name: name?.textContent?.trim() ?? null,
      title: name?.getAttribute('title') ?? name?.getAttribute('data-tip') ?? null, // data-tip while hovered (lib/tooltip.ts)
      button: row?.querySelector('[data-testid="notes-folder-choose"]')?.textContent?.trim() ?? null,
    };
  });
}

/** The checklist items of `root` (a locator): [{text, done, struck}]. */
export function todoItems(root) {
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

export function sessionTitles(page) {
  return page.$$eval('[data-testid="session-item"] [data-testid="session-title"]', (els) => els.map((e) => e.textContent.trim()));
}

/** True when a reply (or error) is there and nothing is streaming, checked in one go. */
export function settled(page) {
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

export async function composerFocused(page) {
  return page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'composer');
}

/**
 * "+ New chat": the empty draft opens and no chat is made yet — the first
 * message makes it (send). The sidebar keeps its count.
 */
export async function newChat(page) {
  // The sidebar first lists every chat the backend has (other cases' too;
  // a batch worker's session is no chat, and is not listed), each
  // conversation once with its branches (lib/branches.ts conversationRows).
  const chats = (await (await api(new URL(page.url()).origin, '/api/sessions')).json()).filter((s) => !s.kind);
  const ids = new Set(chats.map((s) => s.id));
  const all = chats.filter((s) => !s.parent || !ids.has(s.parent)).length;
  await until(async () => (await $(page, 'session-item').count()) === all, `the ${all} chats in the sidebar`);
  await $(page, 'new-session').click();
  await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"]').count()) === 0, 'the new chat draft (no chat active)');
  assert((await $(page, 'session-item').count()) === all, 'a click on New chat makes no chat before its first message');
}

/** The id of the chat the sidebar shows active, once one is. */
export async function activeId(page) {
  await page.locator('[data-testid="session-item"][aria-current="page"]').waitFor({ timeout: WAIT_MS });
  return page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
}

export async function send(page, text) {
  await $(page, 'composer').fill(text);
  await $(page, 'composer').press('Enter');
}

/**
 * Records every state the models screen's pull rows show ("running:40"),
 * in window.__pullStates, so a quick pull's progress is seen.
 */
export function recordPulls(page) {
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
export function toolCards(page) {
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
export function timeline(page) {
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
export function recordPosts(page, re) {
  const bodies = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && re.test(new URL(r.url()).pathname)) bodies.push(JSON.parse(r.postData() ?? 'null'));
  });
  return bodies;
}

/** The page's last view snapshot, as POST /api/probe wrote it (null before the first). */
export function probe() {
  return existsSync(FX.probePath) ? JSON.parse(readFileSync(FX.probePath, 'utf8')) : null;
}

/** Opens a new chat and sends each text (the fake model echoes it), one reply at a time; the chat's id. */
export async function chatWith(page, base, ...texts) {
  await open(page, base);
  await newChat(page);
  for (const text of texts) {
    await send(page, text);
    await until(async () => (await messages(page)).some((m) => m.text === `You said: ${text}`) && (await settled(page)), `the reply to "${text}"`);
  }
  return shownId(page);
}

/** The id of the chat the page shows. */
export function shownId(page) {
  return page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
}

/** The log of the chat the page shows. */
export async function activeLog(page, base) {
  const id = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
  return (await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=0`)).json();
}

/** Indexes the fixtures' documents folder through the API and waits until garden.md and soil.txt are done. */
export async function indexDocs(base) {
  await callOp(base, 'Documents.Add', [FX.docsDir]);
  await until(async () => {
    const docs = (await (await callOp(base, 'Documents.State')).json()).documents;
    return ['garden.md', 'soil.txt'].every((f) => docs.some((d) => d.path === join(FX.docsDir, f) && d.status === 'done'));
  }, 'the folder indexed');
}

/** Points the note tools at the fixtures' notes folder (a setting, through the API: the browser's PUT /api/settings). */
export async function useNotes(base, dir = FX.notesDir) {
  const r = await api(base, '/api/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ notesDir: dir }) });
  assert(r.status === 200, `the notes folder set, got ${r.status} ${await r.text()}`);
}

/** Removes every document from the index, so a case starts from none. */
export async function clearDocuments(base) {
  const docs = async () => (await (await callOp(base, 'Documents.State')).json()).documents ?? [];
  for (const d of await docs()) {
    await callOp(base, 'Documents.Remove', d.path);
  }
  await until(async () => (await docs()).length === 0, 'an empty document index');
}

/**
 * The init script of the Wails cases: a fake window.go.main.App and
 * window.runtime that behave like host/window. Every method but Handshake, Doctor
 * and ReportView is refused until Handshake succeeded; Send takes an
 * idempotency key. It records window.__calls (method names in call order),
 * __refused, __handshakes (versions asked for), __keys (Send's keys) and
 * __probe (ReportView snapshots). Runs in the page: self-contained.
 */
export function fakeWails({ speaks, notesDir = '/home/ann/Notes', dialog = [] }) {
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
        Questions: bound('Questions', () => []),
        QuestionShown: bound('QuestionShown', () => {}),
        // The ports' operations, as host/window's Op dispatches them (host.Wire):
        // the documents panel's here; any other is not in this fake window.
        Op: (name, args) => {
          const ops = {
            'Documents.State': () => ({ embedder: 'ollama:nomic-embed-text', offline: false, roots: [], documents: docs, progress }),
            'Documents.Add': (paths) => window.__drop(paths),
            'Documents.Cancel': () => {},
            'Documents.Retry': () => {},
            'Documents.Remove': () => {},
            'Documents.Source': (path) => Promise.reject(`${path}: this file is not in the document index; drop it on the window to add it`),
          };
          if (!ops[name]) return Promise.reject(`${name} is not in this fake window`);
          return bound(name, ops[name])(...args);
        },
        // Like host/window: neither needs the handshake.
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
