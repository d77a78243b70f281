// e2e cases: The notes folder: choosing it, plans, moves and undo, the changes list, a batch review.
// Run in the order cases.mjs lists them, against one backend.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  FX,
  P,
  VERSION,
  WAIT_MS,
  callOp,
  until,
  assert,
  $,
  open,
  HINT,
  notesRow,
  todoItems,
  settled,
  newChat,
  send,
  timeline,
  recordPosts,
  activeLog,
  useNotes,
  untilSays,
  saidIn,
} from '../helpers.mjs';

export const cases = [
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
      const saved = await (await callOp(base, 'Settings.Screen')).json();
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
      assert((await (await callOp(base, 'Settings.Screen')).json()).notesDir === FX.notesDir, 'and in Quire');

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
      await untilSays(page, 'note-preview', 'Start from', 'the linking note opened');
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
      await untilSays(page, 'note-preview', 'buy seeds', 'the note rendered in the preview');
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
      await untilSays(page, 'changes-outcome', 'changed after Quire wrote it', 'the refusal said');
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
      const said = (await saidIn(page, 'batch-error', "Quire's refusal of the batch")).trim();
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
      const applies = recordPosts(page, /\/api\/op\/Batches\.Apply$/);
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
];
