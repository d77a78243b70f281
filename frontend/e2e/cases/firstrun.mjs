// e2e cases: the first ten minutes' edges (issue 31): the header at every
// size, an empty chat's examples, tooltips that stay inside the window.
// Run in the order cases.mjs lists them, against one backend.
import { WAIT_MS, until, assert, $, open, messages, newChat, send, composerFocused } from '../helpers.mjs';

export const cases = [
  {
    name: 'the header holds from 800x600 to 1920x1080: no control covers another, the title keeps room, "Saved to" takes none of it; "/" goes to the composer',
    slug: 'header-holds',
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await send(page, 'header check');
      await until(async () => (await messages(page)).some((m) => m.role === 'assistant' && m.text === 'You said: header check'), 'a reply, so the chat has an Export');
      await $(page, 'export-open').waitFor({ timeout: WAIT_MS });
      const header = () =>
        page.evaluate(() => {
          const h = document.querySelector('header.header');
          const box = (el) => {
            const r = el.getBoundingClientRect();
            return { l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width };
          };
          const controls = [...h.children].filter((el) => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0);
          return {
            header: box(h),
            title: box(h.querySelector('.title')),
            controls: controls.map((el) => ({ name: el.getAttribute('data-testid') ?? el.className, ...box(el) })),
            overflow: h.scrollWidth - h.clientWidth,
          };
        });
      const check = async (what) => {
        const m = await header();
        assert(m.overflow <= 0, `${what}: the header overflows by ${m.overflow}px`);
        for (const c of m.controls) assert(c.l >= m.header.l - 0.5 && c.r <= m.header.r + 0.5, `${what}: ${c.name} is outside the header (${c.l}–${c.r} of ${m.header.l}–${m.header.r})`);
        const sorted = [...m.controls].sort((x, y) => x.l - y.l);
        for (let i = 1; i < sorted.length; i++) assert(sorted[i].l >= sorted[i - 1].r - 0.5, `${what}: ${sorted[i].name} covers ${sorted[i - 1].name}`);
        assert(m.title.w >= 56, `${what}: the title is squeezed to ${m.title.w}px`);
        return m;
      };
      for (const [w, h] of [[800, 600], [900, 600], [1280, 800], [1920, 1080]]) {
        await page.setViewportSize({ width: w, height: h });
        await check(`${w}x${h}`);
        if (w === 800 || w === 1920) await page.screenshot({ path: shot.replace(/\.png$/, `-${w}.png`) });
        if ((await $(page, 'documents-panel').count()) === 0) await $(page, 'documents-open').click();
        await $(page, 'documents-panel').waitFor({ timeout: WAIT_MS });
        await check(`${w}x${h} with Documents open`);
        if (w === 900) await page.screenshot({ path: shot.replace(/\.png$/, '-900-docs.png') });
        await $(page, 'documents-open').click();
        await until(async () => (await $(page, 'documents-panel').count()) === 0, 'the Documents panel closed');
      }
      // An export's "Saved to …"/"Downloaded …" shows under the button and
      // takes no width from the title.
      await page.setViewportSize({ width: 1280, height: 800 });
      const before = (await header()).title.w;
      await $(page, 'export-open').click();
      const download = page.waitForEvent('download');
      await $(page, 'export-md').click();
      await download;
      await $(page, 'export-status').waitFor({ timeout: WAIT_MS });
      const after = await check('with the export said');
      assert(Math.abs(after.title.w - before) < 1, `the title went from ${before}px to ${after.title.w}px when the export was said`);
      await $(page, 'export-status-close').click();
      // "/" outside a text field puts the keyboard in the composer.
      await page.locator('header.header .title').click();
      assert(!(await composerFocused(page)), 'the composer lost the focus to the click');
      await page.keyboard.press('/');
      await until(() => composerFocused(page), '"/" to focus the composer');
      assert((await $(page, 'composer').inputValue()) === '', 'the "/" was not typed into the composer');
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: shot });
    },
  },
  {
    name: 'an empty chat offers examples: one clicked goes into the message box, to send or change',
    slug: 'empty-examples',
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      const examples = await $(page, 'example').allTextContents();
      assert(examples.length >= 2, `the empty chat offers examples, got ${JSON.stringify(examples)}`);
      await $(page, 'example').nth(1).click();
      await until(async () => (await $(page, 'composer').inputValue()) === examples[1].trim(), 'the example in the message box');
      assert(await composerFocused(page), 'the message box has the keyboard');
      assert((await $(page, 'message').count()) === 0, 'nothing was sent by the click');
      await page.screenshot({ path: shot });
    },
  },
  {
    name: 'a tooltip stays inside the window and goes the moment the pointer does, giving the element its title back',
    slug: 'tooltips',
    async run({ page, base, shot }) {
      await open(page, base);
      await newChat(page);
      await page.setViewportSize({ width: 800, height: 600 });
      // The "?" sits at the header's right edge: a tip centred on it would be cut.
      const btn = $(page, 'shortcuts-button');
      const title = await btn.getAttribute('title');
      assert(title, 'the ? button has a title');
      await btn.hover();
      await $(page, 'tooltip').waitFor({ timeout: WAIT_MS });
      assert((await $(page, 'tooltip').textContent()) === title, 'the tip says the title');
      assert((await btn.getAttribute('title')) === null, 'no native tooltip while ours shows');
      const box = await $(page, 'tooltip').boundingBox();
      assert(box.x >= 0 && box.x + box.width <= 800 && box.y >= 0 && box.y + box.height <= 600, `the tip is whole inside the window: ${JSON.stringify(box)}`);
      await page.screenshot({ path: shot });
      await page.mouse.move(400, 300);
      await until(async () => (await $(page, 'tooltip').count()) === 0, 'the tip gone');
      assert((await btn.getAttribute('title')) === title, 'the title is back');
    },
  },
];
