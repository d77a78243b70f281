// e2e cases: Chatting: sending and streaming, sessions, reload, errors, stop, the protocol, retries, steering and queueing, branches, continue, search and export.
// Run in the order cases.mjs lists them, against one backend.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FX,
  P,
  LINKS,
  secretOf,
  VERSION,
  CITE_REPLY,
  WAIT_MS,
  api,
  until,
  assert,
  $,
  open,
  messages,
  sessionTitles,
  settled,
  composerFocused,
  newChat,
  activeId,
  send,
  toolCards,
  timeline,
  recordPosts,
  probe,
  chatWith,
  shownId,
  activeLog,
  indexDocs,
  untilSays,
  saidIn,
} from '../helpers.mjs';

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
      const strip = await saidIn(page, 'error-strip', 'the refusal');
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
      await untilSays(page, 'export-status', 'Downloaded cite-how-do-I-water-the-basil.md', 'the page says what it downloaded');

      await $(page, 'export-open').click();
      const [jl] = await Promise.all([page.waitForEvent('download'), $(page, 'export-jsonl').click()]);
      assert(jl.suggestedFilename() === 'cite-how-do-I-water-the-basil.jsonl', `the log's name, got ${jl.suggestedFilename()}`);
      const lines = readFileSync(await jl.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const publicLog = log.filter((e) => e.visibility === 'public');
      assert(lines.length === publicLog.length && lines.every((e, i) => e.seq === publicLog[i].seq && e.type === publicLog[i].type && e.visibility === 'public'), `one line per public event, got ${lines.length} for ${publicLog.length}`);
      await page.screenshot({ path: shot });
    },
  },
];
