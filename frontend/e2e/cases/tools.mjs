// e2e cases: Tools and their questions: tool cards, permissions, long and forgotten questions, secrets, exfiltration, an MCP tool.
// Run in the order cases.mjs lists them, against one backend.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FX,
  P,
  WAIT_MS,
  api,
  callOp,
  until,
  assert,
  otherOrigin,
  $,
  open,
  messages,
  sessionTitles,
  settled,
  newChat,
  send,
  toolCards,
  timeline,
  recordPosts,
  activeLog,
  useNotes,
  saidIn,
} from '../helpers.mjs';

export const cases = [
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
      const said = await saidIn(page, 'permission-error', 'the 409 sentence');
      assert(said.trim() === notAsked, `the 409 sentence, got "${said}"`);
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
    name: "a forget's question in the browser names the item's kind and text, not only its id",
    slug: 'question-forget',
    async run({ page, base, shot }) {
      const memory = async () => (await (await callOp(base, 'Memory.MemoryList')).json()) ?? {};
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
      const said = (await saidIn(page, 'error-strip', 'the error strip')).replace(/\s+/g, ' ');
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
      const listed = (await (await callOp(base, 'MCP.Servers')).json()).servers.find((s) => s.config.name === M.name);
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
];
