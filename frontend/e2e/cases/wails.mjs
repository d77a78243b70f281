// e2e cases: Inside the Wails window (fakeWails stands in for host/window).
// Run in the order cases.mjs lists them, against one backend.
import {
  VERSION,
  WAIT_MS,
  api,
  until,
  assert,
  $,
  open,
  messages,
  notesRow,
  sessionTitles,
  send,
  probe,
  fakeWails,
  untilSays,
  saidIn,
} from '../helpers.mjs';

export const cases = [
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
      const strip = await saidIn(page, 'error-strip', 'the error strip');
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
      await untilSays(page, 'error-strip', 'Could not send: incompatible protocol version', 'the send refused');
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
      await untilSays(page, 'documents-error', 'no such file or folder', 'the drop error');
      const calls = await page.evaluate(() => window.__calls);
      assert(calls.includes('Documents.State'), `the Documents.State operation was used, got ${JSON.stringify(calls)}`);
    },
  },
];
