// e2e cases: What Quire keeps and shows of itself: memory, evolution, the inspector, compaction.
// Run in the order cases.mjs lists them, against one backend.
import { writeFileSync } from 'node:fs';
import {
  FX,
  P,
  MEMORY_EMPTY,
  WAIT_MS,
  api,
  callOp,
  until,
  assert,
  $,
  open,
  messages,
  settled,
  newChat,
  activeId,
  send,
  toolCards,
  probe,
  activeLog,
  useNotes,
  untilSays,
} from '../helpers.mjs';

export const cases = [
  {
    name: 'the memory panel: a remember asks first, see the item by kind and how it was let in, edit it (an empty text is refused), remember without asking, follow it to its chat, forget it',
    slug: 'memory-panel',
    async run({ page, base, shot }) {
      const memory = async () => (await (await callOp(base, 'Memory.MemoryList')).json()) ?? {};
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
      await untilSays(page, 'memory-error', MEMORY_EMPTY, 'the empty-text sentence');
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
    name: 'evolution: a candidate written by the user, its diff and its eval report (the scenario it breaks first, in red, ticked before Approve), approved, activated for every conversation (the next request carries it), rolled back (the next does not)',
    slug: 'evolution',
    async run({ page, base, shot }) {
      const rule = 'Receipts are filed under finance/receipts/YYYY.';
      const json = { 'Content-Type': 'application/json' };
      const made = await callOp(base, 'Evolution.Propose', { name: 'receipts', kind: 'prompt', artifact: { prompt: { text: rule } }, origin: { runs: [], signals: [] } });
      const body = await made.text();
      assert(made.status === 200, `the candidate proposed, got ${made.status} ${body}`);
      const { id } = JSON.parse(body);
      // What the model is sent in a new chat's first request (the inspector's operation).
      const firstRequest = async (title) => {
        const post = (path, body) => api(base, path, { method: 'POST', headers: { ...json, 'Idempotency-Key': `e2e-${Math.random().toString(16).slice(2)}` }, body: JSON.stringify(body) });
        const s = await (await post('/api/sessions', { title })).json();
        const path = `/api/sessions/${encodeURIComponent(s.id)}`;
        assert((await post(`${path}/messages`, { text: 'where do receipts go?' })).status === 202, 'the message accepted');
        await until(async () => (await (await api(base, `${path}/events?from=0`)).json()).some((e) => e.type === 'run.finished'), `the run of ${title}`);
        return (await callOp(base, 'Calls.Request', s.id, 1)).json(); // the bytes as one JSON string
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
      const approved = (await (await callOp(base, 'Evolution.Show', id)).json()).candidate;
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
      const route = await (await callOp(base, 'Calls.Request', sid, n)).json(); // the bytes as one JSON string
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
];
