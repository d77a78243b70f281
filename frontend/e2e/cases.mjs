// The e2e cases. Each gets a fresh browser context at 1280x800; with the mock
// server, a fresh mock state too. Cases marked mockOnly rely on the mock's
// scripted replies ("You said: …", "/fail", "/slow").
import { DOCTOR_REMEDY, FAIL_SENTENCE, VERSION } from './mock-server.mjs';

const WAIT_MS = 15000;

/** Node-side call to the API, with the protocol header every /api/ request needs. */
function api(base, path, { headers, ...init } = {}) {
  return fetch(base + path, { ...init, headers: { 'Quire-Protocol': VERSION, ...headers } });
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

const $ = (page, id) => page.locator(`[data-testid="${id}"]`);

async function open(page, base) {
  await page.goto(base, { waitUntil: 'domcontentloaded' });
  await $(page, 'composer').waitFor({ timeout: WAIT_MS });
  assert((await page.title()) === 'Quire', `page title is "Quire", got "${await page.title()}"`);
}

/** What the conversation shows: [{role, text}] (text of the rendered body). */
function messages(page) {
  return page.$$eval('[data-testid="message"]', (els) =>
    els.map((el) => ({ role: el.getAttribute('data-role'), text: (el.querySelector('[data-part="body"]') ?? el).textContent.trim() })),
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

async function newChat(page) {
  const before = await $(page, 'session-item').count();
  await $(page, 'new-session').click();
  await until(async () => (await $(page, 'session-item').count()) === before + 1, 'a new session in the sidebar');
  await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"]').count()) === 1, 'the new session to be active');
}

async function send(page, text) {
  await $(page, 'composer').fill(text);
  await $(page, 'composer').press('Enter');
}

async function probe(base) {
  return (await fetch(`${base}/__mock/probe`)).json();
}

/**
 * The init script of the Wails cases: a fake window.go.main.App and
 * window.runtime that behave like app.go. Every method but Handshake, Doctor
 * and ReportView is refused until Handshake succeeded; Send takes an
 * idempotency key. It records window.__calls (method names in call order),
 * __refused, __handshakes (versions asked for), __keys (Send's keys) and
 * __probe (ReportView snapshots). Runs in the page: self-contained.
 */
function fakeWails({ speaks }) {
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
        Doctor: bound('Doctor', () => ({ ok: true, checks: [{ name: 'ollama', ok: true, detail: 'mock' }] }), false),
        ListSessions: bound('ListSessions', () => copy()),
        NewSession: bound('NewSession', (title) => {
          const s = { id: 'w' + ++n, title, createdAt: now(), updatedAt: now(), lastSeq: 0, running: false };
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
          const runId = 'wr' + ++n;
          sent[key] = { id, text, runId };
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
        Cancel: bound('Cancel', () => {}),
        ReportView: bound('ReportView', (snap) => void window.__probe.push(snap), false),
      },
    },
  };
}

export const cases = [
  {
    name: 'send a message and see the streamed reply rendered',
    slug: 'send-stream',
    async run({ page, base, mock }) {
      await open(page, base);
      await until(() => composerFocused(page), 'the composer to have focus on load');
      if (!mock) await newChat(page);

      // Shift+Enter is a new line, not a send.
      await $(page, 'composer').fill('line one');
      await $(page, 'composer').press('Shift+Enter');
      await $(page, 'composer').pressSequentially('line two');
      assert((await $(page, 'composer').inputValue()) === 'line one\nline two', 'Shift+Enter inserts a newline');
      assert((await $(page, 'message').count()) === 0, 'nothing was sent by Shift+Enter');

      await send(page, 'hello **Quire**');
      assert((await $(page, 'composer').inputValue()) === '', 'the composer is cleared after sending');
      await until(
        async () => (await messages(page)).some((m) => m.role === 'user' && m.text === 'hello **Quire**'),
        'the user bubble (raw text)',
      );
      if (mock) {
        // While streaming: the caret class and the Stop button are there.
        await page.locator('[data-role="assistant"].streaming').waitFor({ timeout: WAIT_MS });
        await $(page, 'stop').waitFor({ timeout: WAIT_MS });
        await until(
          async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === 'You said: hello Quire'),
          'the whole streamed reply',
        );
        // Markdown in the reply is rendered, not shown raw.
        assert((await page.locator('[data-role="assistant"] strong').textContent()) === 'Quire', 'bold is rendered');
        await until(async () => (await page.locator('[data-role="assistant"].streaming').count()) === 0, 'streaming to end');
        await until(async () => (await $(page, 'stop').count()) === 0, 'Stop to go away');
        const usage = await $(page, 'usage').textContent();
        assert(/prompt · \d+ output tokens · 1\.2 s/.test(usage), `usage under the reply, got "${usage}"`);
        const msgs = await messages(page);
        assert(msgs.filter((m) => m.role === 'assistant').length === 1, 'exactly one reply (deltas not duplicated)');
        // The test probe got the same picture.
        const snap = await until(async () => {
          const p = await probe(base);
          return p && !p.streaming && p.messages.length === 2 && p;
        }, 'a probe snapshot after the reply');
        assert(snap.messages[1].text === 'You said: hello Quire', `probe reply text, got ${JSON.stringify(snap.messages)}`);
        assert(snap.activeSession && snap.sessionTitles[0] === 'hello **Quire**', `probe session, got ${JSON.stringify(snap)}`);
        assert(snap.banner === null, 'no banner in the probe');
      } else {
        await until(
          async () => (await messages(page)).some((m) => (m.role === 'assistant' || m.role === 'error') && m.text),
          'a reply or an error sentence',
          60000,
        );
      }
    },
  },

  {
    name: 'create, rename and delete a session (with the confirm dialog)',
    slug: 'sessions',
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await newChat(page);
      let titles = await sessionTitles(page);
      assert(titles[0] === 'New chat' && titles[1] === 'New chat', `two new chats on top, got ${JSON.stringify(titles)}`);
      await until(() => composerFocused(page), 'composer focus after New chat');

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
      await until(async () => (await page.locator('[data-testid="session-item"][aria-current="page"] [data-testid="session-title"]').textContent()) === 'New chat', 'the second chat active');
      await until(() => composerFocused(page), 'composer focus after switching');

      // Delete asks first; Cancel keeps it.
      const count = await $(page, 'session-item').count();
      await first.hover();
      await first.locator('[data-testid="delete"]').click();
      const dialog = $(page, 'confirm-dialog');
      await dialog.waitFor();
      const said = (await dialog.textContent()).replace(/\s+/g, ' ');
      assert(said.includes('Delete “Garden plans”? This removes its whole conversation.'), `dialog text, got "${said}"`);
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
    name: 'the doctor banner shows a failing check with its remedy',
    slug: 'doctor-banner',
    mockOptions: { doctorOk: false },
    async run({ page, base, mock, shot }) {
      if (!mock) {
        await page.route('**/api/doctor', (route) =>
          route.fulfill({
            status: 200,
            contentType: 'application/json',
            body: JSON.stringify({
              ok: false,
              checks: [
                { name: 'database', ok: true, detail: 'ok' },
                { name: 'ollama', ok: false, detail: 'Ollama is not running at http://127.0.0.1:11434', remedy: DOCTOR_REMEDY },
              ],
            }),
          }),
        );
      }
      await open(page, base);
      const banner = $(page, 'banner');
      await banner.waitFor({ timeout: WAIT_MS });
      const text = (await banner.textContent()).replace(/\s+/g, ' ');
      assert(text.includes('ollama') && text.includes('Ollama is not running at http://127.0.0.1:11434'), `failing check in banner, got "${text}"`);
      assert(text.includes('start it with ollama serve'), `remedy in banner, got "${text}"`);
      assert((await banner.locator('code').textContent()) === 'ollama serve', 'the remedy command is shown as code');
      assert(!text.includes('database'), 'passing checks are not listed');
      assert(await $(page, 'composer').isEditable(), 'the chat still works');
      if (mock) {
        const snap = await until(async () => (await probe(base))?.banner, 'the banner in the probe');
        assert(snap.includes('ollama serve'), `probe banner, got ${snap}`);
      }
      await page.screenshot({ path: shot }); // the banner, before it is dismissed
      await $(page, 'banner-dismiss').click();
      await banner.waitFor({ state: 'detached' });
      assert(await $(page, 'composer').isVisible(), 'the chat is still there after dismissing');
      if (mock) await until(async () => (await probe(base))?.banner === null, 'no banner in the probe after dismissing');
    },
  },

  {
    name: 'reload the page and the conversation is still there',
    slug: 'reload',
    async run({ page, base, mock }) {
      await open(page, base);
      await newChat(page);
      await send(page, 'remember this');
      await until(() => settled(page), 'the reply to settle', mock ? WAIT_MS : 60000);
      const before = await messages(page);
      if (mock) assert(JSON.stringify(before) === JSON.stringify([{ role: 'user', text: 'remember this' }, { role: 'assistant', text: 'You said: remember this' }]), `before reload, got ${JSON.stringify(before)}`);
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
    // Against a real server, QUIRE_E2E_FAIL_PROMPT names a message whose run ends in an error.
    mockOnly: !process.env.QUIRE_E2E_FAIL_PROMPT,
    async run({ page, base, mock }) {
      await open(page, base);
      if (!mock) await newChat(page);
      await send(page, mock ? '/fail please' : process.env.QUIRE_E2E_FAIL_PROMPT);
      const err = await until(async () => (await messages(page)).find((m) => m.role === 'error'), 'an error item', 60000);
      // The sentence is shown word for word: the one in the run.finished event.
      const id = await page.locator('[data-testid="session-item"][aria-current="page"]').getAttribute('data-session-id');
      const log = await (await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=0`)).json();
      const finished = log.filter((e) => e.type === 'run.finished').at(-1);
      assert(finished?.payload?.reason === 'error', `the log ends the run with an error, got ${JSON.stringify(finished)}`);
      assert(err.text === finished.payload.error, `the sentence from Go, got "${err.text}"`);
      if (mock) assert(err.text === FAIL_SENTENCE, `the mock's sentence, got "${err.text}"`);
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
    // Against a real server, QUIRE_E2E_SLOW_PROMPT names a message whose reply streams for a few seconds.
    mockOnly: !process.env.QUIRE_E2E_SLOW_PROMPT,
    async run({ page, base, shot, mock }) {
      await open(page, base);
      if (!mock) await newChat(page);
      await send(page, mock ? '/slow count' : process.env.QUIRE_E2E_SLOW_PROMPT);
      await $(page, 'stop').waitFor({ timeout: mock ? WAIT_MS : 60000 });
      await until(async () => (await messages(page)).find((m) => m.role === 'assistant' && m.text.length > (mock ? 30 : 0)), 'some streamed text', mock ? WAIT_MS : 60000);
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
      if (mock) {
        const text = (await messages(page)).find((m) => m.role === 'assistant').text;
        const full = 'Counting slowly: ' + Array.from({ length: 40 }, (_, i) => i + 1).join(', ') + '.';
        assert(text.length > 8 && full.startsWith(text) && text !== full, `a partial reply, got "${text}"`);
      }
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

      // The handshake came once, before every method that needs it (Doctor and
      // the probe may go first), and the fake App refused nothing.
      const { calls, refused, handshakes, keys } = await page.evaluate(() => ({
        calls: window.__calls,
        refused: window.__refused,
        handshakes: window.__handshakes,
        keys: window.__keys,
      }));
      const gated = calls.filter((c) => c !== 'Doctor' && c !== 'ReportView');
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
      assert(!after.some((c) => c !== 'Doctor' && c !== 'ReportView' && c !== 'Handshake'), `nothing but Doctor and the probe was called, got ${JSON.stringify(after)}`);
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
        const ok = u.pathname === '/api/stream' ? u.searchParams.get('protocol') === VERSION : r.headers()['quire-protocol'] === VERSION;
        if (!ok) unversioned.push(`${r.method()} ${u.pathname}${u.search}`);
      });
      await open(page, base);
      await newChat(page);
      await send(page, 'versioned');
      await until(() => settled(page), 'the reply to settle', 60000);
      assert(seen.includes('GET /api/stream') && seen.includes('POST /api/sessions'), `the page used the API, got ${JSON.stringify(seen)}`);
      assert(unversioned.length === 0, `requests without the protocol version: ${unversioned.join(', ')}`);

      // Without a compatible version: 426 with a sentence, everywhere under /api/.
      for (const [what, path, headers] of [
        ['no header', '/api/sessions', {}],
        ['a 2.0 client', '/api/sessions', { 'Quire-Protocol': '2.0' }],
        ['the stream without ?protocol=', '/api/stream', {}],
        ['an unknown route', '/api/nope', {}],
      ]) {
        const r = await fetch(base + path, { headers });
        const body = await r.json().catch(() => null);
        assert(r.status === 426 && /incompatible protocol version/.test(body?.error), `${what}: 426, got ${r.status} ${JSON.stringify(body)}`);
      }
      const hs = await fetch(`${base}/api/handshake?version=${VERSION}`);
      assert(hs.status === 200 && (await hs.json()).version.split('.')[0] === VERSION.split('.')[0], `handshake ${VERSION}: 200, got ${hs.status}`);
      const old = await fetch(`${base}/api/handshake?version=2.0`);
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
    async run({ page, base, mock, shot }) {
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
      await until(() => settled(page), 'the reply to settle', mock ? WAIT_MS : 60000);
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
      if (mock) {
        const msgs = await messages(page);
        assert(msgs.at(-1).text === 'You said: flaky network', `the reply, got ${JSON.stringify(msgs)}`);
      }
    },
  },
];
