// e2e cases: Setting Quire up: the health banner, the first run, models, Settings and skills.
// Run in the order cases.mjs lists them, against one backend.
import {
  FX,
  P,
  DOWN,
  FIRST,
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
  recordPulls,
  probe,
  activeLog,
  useNotes,
  untilSays,
} from '../helpers.mjs';

export const cases = [
  {
    name: 'without Ollama a new user is told what to install, Send is off with the reason and the fix, and a chat that failed shows the banner with the window\'s hint',
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

      // Send is off, with the reason and the fix, so no chat is saved that
      // holds only the connection error (issue 31).
      const chatsBefore = (await (await api(base, '/api/sessions')).json()).length;
      await $(page, 'composer').fill('hello');
      assert(await $(page, 'send').isDisabled(), 'Send is off without Ollama');
      const blocked = ((await $(page, 'send-blocked').textContent()) ?? '').replace(/\s+/g, ' ');
      assert(blocked.includes('Ollama is not running') && blocked.includes(bad.hint), `the reason and the fix by the composer, got "${blocked}"`);
      await $(page, 'composer').press('Enter');
      assert((await (await api(base, '/api/sessions')).json()).length === chatsBefore, 'Enter made no chat');
      assert((await $(page, 'composer').inputValue()) === 'hello', 'the words stay in the box');

      // A chat whose request failed (sent from elsewhere: a script, before
      // Ollama stopped) shows the banner in place of the first screen.
      const made = await (await api(base, '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'failed' }) })).json();
      const sent = await api(base, `/api/sessions/${encodeURIComponent(made.id)}/messages`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'hello' }) });
      assert(sent.status === 202, `the message accepted by the API, got ${sent.status}`);
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.locator(`[data-testid="session-item"][data-session-id="${made.id}"]`).click();
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
    // The fake Ollama has qwen3:4b and nomic-embed-text installed and can
    // pull tiny-text (browser_test.go); the models panel lists, pulls with
    // progress, refuses an unknown name in words, and deletes after asking.
    name: 'models panel: installed models with what each can do, a pull by name with progress, an unknown name said, delete after a confirmation',
    slug: 'models-panel',
    async run({ page, base, shot }) {
      const models = async () => (await (await callOp(base, 'Models.List')).json()) ?? {};
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
      const held = async () => (await (await callOp(base, 'Settings.Screen')).json()).settings;
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
    name: 'Settings → Skills: the shipped skills are listed with their source, one turned off is gone from the next request (the other still listed by name and description, never its instructions), and a folder that is not a skill is refused in words',
    slug: 'skills-settings',
    async run({ page, base }) {
      const text = async (id) => ((await $(page, id).textContent()) ?? '').trim();
      const toggle = (name, on) =>
        callOp(base, 'Skills.SetSkillEnabled', name, on);
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
        const listed = await (await callOp(base, 'Skills.SkillList')).json();
        assert(listed.skills.find((s) => s.name === 'weekly-review')?.enabled === false, 'the host holds weekly-review off');

        await $(page, 'skill-install-dir').fill(FX.notesDir);
        await $(page, 'skill-install').click();
        await untilSays(page, 'skills-error', 'no SKILL.md', 'the refusal of a folder that is not a skill');

        await page.keyboard.press('Escape');
        await until(async () => (await $(page, 'settings-panel').count()) === 0, 'the screen closed');
        await send(page, P.stream);
        await until(() => settled(page), 'the reply');
        const id = await activeId(page);
        const r = await callOp(base, 'Calls.Request', id, 1);
        assert(r.status === 200, `the request, got ${r.status}`);
        const sent = await r.json(); // the bytes as one JSON string
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
      const held = async () => (await (await callOp(base, 'Settings.Screen')).json()).settings;
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
        const r = await callOp(base, 'Settings.Update', { ...(await held()), runner: before.runner, runnerUrl: before.runnerUrl, runnerRemote: false });
        assert(r.status === 200, `the runner put back, got ${r.status}`);
      }
    },
  },
];
