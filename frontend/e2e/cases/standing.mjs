// e2e cases: standing tasks, Quire's organising on a schedule (issue 33).
// Run in the order cases.mjs lists them, against one backend.
import { WAIT_MS, callOp, until, assert, $, open } from '../helpers.mjs';

export const cases = [
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
      const listed = await (await callOp(base, 'Standing.List')).json();
      assert(listed.length === 1 && listed[0].task.instruction === 'Receipts go under finance/receipts' && listed[0].task.schedule.weekday === 'friday',
        `the host holds the task, got ${JSON.stringify(listed)}`);
      await page.screenshot({ path: shot });

      await row.locator('[data-testid="standing-pause"]').click();
      await until(async () => (await row.getAttribute('data-paused')) === 'true', 'the task paused');
      assert((await (await callOp(base, 'Standing.List')).json())[0].task.paused === true, 'the host holds it paused');
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
      assert((await (await callOp(base, 'Standing.List')).json()).length === 0, 'the host holds none');
    },
  },
];
