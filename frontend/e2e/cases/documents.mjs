// e2e cases: Documents: the panel, cancelling, indexing end to end, citations, the embedder.
// Run in the order cases.mjs lists them, against one backend.
import { join } from 'node:path';
import {
  FX,
  P,
  CITE_REPLY,
  NOT_INDEXED,
  NO_SUCH_PATH,
  RELATIVE_PATH,
  WAIT_MS,
  callOp,
  until,
  assert,
  $,
  open,
  messages,
  settled,
  newChat,
  send,
  recordPosts,
  indexDocs,
  clearDocuments,
  untilSays,
} from '../helpers.mjs';

export const cases = [
  {
    name: 'documents: a folder added by path is indexed with a progress bar; a binary file fails with its reason; retry and remove',
    slug: 'documents-panel',
    // The folder's texts are slow to embed (browser_test.go slowEmbedder), so the bar can be seen counting.
    async run({ page, base, shot }) {
      await clearDocuments(base);
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-panel').waitFor({ timeout: WAIT_MS });
      const panelText = await $(page, 'documents-embedder').textContent();
      assert(panelText.trim() === 'Meaning search: Ollama model nomic-embed-text', `the active embedder is said, got "${panelText}"`);

      // A relative path: Go's sentence, and nothing queued.
      await $(page, 'documents-input').fill('papers');
      await $(page, 'documents-add').click();
      await untilSays(page, 'documents-error', RELATIVE_PATH, 'the relative-path sentence');
      await $(page, 'documents-input').fill(join(FX.panelDir, 'nowhere'));
      await $(page, 'documents-add').click();
      await untilSays(page, 'documents-error', NO_SUCH_PATH, 'the missing-path sentence');

      await $(page, 'documents-input').fill(FX.panelDir);
      await $(page, 'documents-add').click();
      const bar = $(page, 'indexing-bar');
      // The bar counts files while the pass runs, naming the current one and the time left.
      await until(async () => /^Indexing \d of 3 files$/.test((await $(page, 'indexing-label').textContent()) ?? ''), 'the bar counting files');
      assert((await $(page, 'indexing-cancel').count()) === 1, 'Stop is offered while indexing');
      await until(async () => /left/.test((await $(page, 'indexing-detail').textContent()) ?? ''), 'the bar says the time left');
      await page.screenshot({ path: shot.replace(/\.png$/, '-progress.png') });
      await until(async () => (await bar.getAttribute('data-phase')) === 'done', 'the pass done');
      assert((await $(page, 'indexing-label').textContent()).trim() === 'Indexed 3 files', 'the outcome');
      const rows = () =>
        page.$$eval('[data-testid="doc-item"]', (els) =>
          els.map((el) => ({
            name: el.querySelector('[data-testid="doc-name"]').textContent.trim(),
            status: el.getAttribute('data-status'),
            reason: el.querySelector('[data-testid="doc-reason"]')?.textContent.trim() ?? '',
          })),
        );
      const got = await until(async () => {
        const r = await rows();
        return r.length === 3 && r.every((x) => x.status !== 'queued') && r;
      }, 'three documents listed');
      const photo = got.find((r) => r.name === 'papers/photo.txt');
      const failed = (await (await callOp(base, 'Documents.State')).json()).documents.find((d) => d.path === join(FX.panelDir, 'photo.txt'));
      assert(failed?.status === 'failed' && /binary/.test(failed.reason), `Quire failed the binary file, got ${JSON.stringify(failed)}`);
      assert(photo?.status === 'failed' && photo.reason === failed.reason, `the binary file failed with its reason, got ${JSON.stringify(got)}`);
      assert(got.filter((r) => r.status === 'done').length === 2, `two ready, got ${JSON.stringify(got)}`);
      assert((await $(page, 'documents-count').textContent()).trim() === '3', 'the header counts the documents');
      // The file Quire does not read is skipped: not a failure, not a
      // document, listed apart in a collapsed group with the reason.
      assert(/1 file skipped \(not a format Quire reads\)/.test((await $(page, 'indexing-detail').textContent()) ?? ''), 'the bar says the skipped file');
      const skipped = (await (await callOp(base, 'Documents.State')).json()).documents.find((d) => d.path === join(FX.panelDir, 'config.yml'));
      assert(skipped?.status === 'skipped' && skipped.reason === 'Quire does not read .yml files', `config.yml skipped with its reason, got ${JSON.stringify(skipped)}`);
      assert((await $(page, 'documents-counts').textContent()).trim() === '3 documents · 1 failed · 1 skipped', 'the panel counts the skipped file apart');
      const group = $(page, 'documents-skipped');
      assert(!(await group.evaluate((el) => el.open)), 'the skipped group starts collapsed');
      await $(page, 'documents-skipped-summary').click();
      const item = page.locator('[data-testid="doc-skipped"]');
      await item.waitFor({ timeout: WAIT_MS });
      assert((await item.locator('[data-testid="doc-reason"]').textContent()).trim() === 'Quire does not read .yml files', 'the skipped file shows its reason');
      await page.screenshot({ path: shot });

      // Retry is offered only on the failed one; Remove asks first, then the row goes.
      assert((await $(page, 'doc-retry').count()) === 1, 'one Retry');
      const retried = recordPosts(page, /\/api\/op\/Documents\.Retry$/);
      await $(page, 'doc-retry').click();
      await until(() => retried.length === 1, 'the retry sent');
      assert(retried[0][0] === join(FX.panelDir, 'photo.txt'), `retry of the failed file, got ${JSON.stringify(retried)}`);
      // Quire read it again, and failed it again for the same reason.
      await until(async () => {
        const d = (await (await callOp(base, 'Documents.State')).json()).documents.find((x) => x.path === failed.path);
        return d.updated !== failed.updated && d.status === 'failed' && d.reason === failed.reason;
      }, 'the file read again');
      await page.locator('[data-testid="doc-item"][data-path$="/soil.txt"] [data-testid="doc-remove"]').click();
      await $(page, 'confirm-delete').click();
      await until(async () => (await rows()).every((r) => r.name !== 'papers/soil.txt'), 'soil.txt removed from the list');
      await until(async () => !(await (await callOp(base, 'Documents.State')).json()).documents.some((d) => d.path.endsWith('/soil.txt')), 'soil.txt out of the index');
    },
  },

  {
    name: 'Stop cancels indexing; the bar says what was kept',
    slug: 'documents-cancel',
    // A file of this folder is embedded only once its pass is stopped (browser_test.go slowEmbedder).
    async run({ page, base }) {
      await clearDocuments(base);
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-input').fill(FX.holdDir);
      await $(page, 'documents-add').click();
      await $(page, 'indexing-cancel').click();
      const bar = $(page, 'indexing-bar');
      await until(async () => (await bar.getAttribute('data-phase')) === 'cancelled', 'the pass stopped');
      assert((await $(page, 'indexing-label').textContent()).trim() === 'Indexing stopped', 'the bar says it stopped');
      assert(((await $(page, 'indexing-detail').textContent()) ?? '').includes('the rest is picked up next time'), 'and what happens to the rest');
      await $(page, 'indexing-close').click();
      assert((await bar.count()) === 0, 'the finished bar can be closed');
      const docs = (await (await callOp(base, 'Documents.State')).json()).documents;
      assert(!docs.some((d) => d.path.endsWith('/big.md') && d.status === 'done'), `the held file was not indexed, got ${JSON.stringify(docs)}`);
    },
  },

  {
    // A real folder (FX.docsDir, named "papers") and a fake model that calls
    // search_docs and then cites [1].
    name: 'documents end to end: add a folder, progress to done, a binary file failed, then a cited answer opens the source',
    slug: 'documents-e2e',
    async run({ page, base, shot }) {
      const root = FX.docsDir;
      await clearDocuments(base);
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-input').fill(root);
      await $(page, 'documents-add').click();
      const bar = $(page, 'indexing-bar');
      // Done with this folder's three files (not the removals before it).
      await until(
        async () => (await bar.count()) === 1 && (await bar.getAttribute('data-phase')) === 'done' && (await bar.getAttribute('data-total')) === '3',
        'indexing done with three files',
        30000,
      );
      const rows = await until(async () => {
        const r = await page.$$eval('[data-testid="doc-item"]', (els) =>
          els.map((el) => [el.querySelector('[data-testid="doc-name"]').textContent.trim(), el.getAttribute('data-status'), el.querySelector('[data-testid="doc-reason"]')?.textContent ?? '']),
        );
        return r.length === 3 && r.every(([, st]) => st === 'done' || st === 'failed') && r;
      }, 'the three documents listed');
      const byName = Object.fromEntries(rows.map(([n, st, why]) => [n, [st, why]]));
      assert(byName['papers/garden.md']?.[0] === 'done' && byName['papers/soil.txt']?.[0] === 'done', `garden.md and soil.txt ready, got ${JSON.stringify(rows)}`);
      assert(byName['papers/photo.txt']?.[0] === 'failed' && /binary/.test(byName['papers/photo.txt'][1]), `photo.txt failed as binary, got ${JSON.stringify(rows)}`);
      await $(page, 'documents-close').click();

      await newChat(page);
      await send(page, P.cite);
      await until(() => settled(page), 'the cited reply', 30000);
      const reply = (await messages(page)).at(-1);
      assert(reply.role === 'assistant' && reply.text === CITE_REPLY, `the reply, got ${JSON.stringify(reply)}`);
      const link = page.locator('[data-testid="citation-link"][data-cite="1"]');
      assert((await link.count()) === 1, 'the reply\'s [1] is a link');
      await link.click();
      await $(page, 'source-viewer').waitFor({ timeout: WAIT_MS });
      await until(async () => (await $(page, 'source-marked').count()) > 0, 'the cited lines highlighted');
      const name = (await $(page, 'source-name').textContent()).trim();
      const marked = await page.$$eval('[data-testid="source-marked"] .txt', (els) => els.map((e) => e.textContent));
      assert(name === 'papers/garden.md', `passage 1 is in garden.md, got ${name}`);
      assert(marked.includes('Water the basil every morning.'), `the highlighted lines hold the passage, got ${JSON.stringify(marked)}`);
      await page.screenshot({ path: shot });
    },
  },

  {
    name: 'a cited answer: search_docs passages and [n] in the reply open the source at the cited lines',
    slug: 'citations',
    // Last: it removes a document the other cases cite.
    async run({ page, base, shot }) {
      const garden = join(FX.docsDir, 'garden.md');
      await indexDocs(base);
      await open(page, base);
      await newChat(page);
      await send(page, P.cite);
      await until(() => settled(page), 'the reply');
      const reply = (await messages(page)).at(-1);
      assert(reply.text === CITE_REPLY, `the reply, got ${JSON.stringify(reply)}`);
      const links = await page.$$eval('[data-testid="citation-link"]', (els) => els.map((e) => e.textContent));
      assert(JSON.stringify(links) === JSON.stringify(['[1]', '[2]']), `[1] and [2] are links, got ${JSON.stringify(links)}`);
      // The search_docs card lists the passages as links too, not the model's text.
      const passages = await page.$$eval('[data-testid="citation"]', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim()));
      // One passage per idea: garden.md's Water and Soil sections both match
      // and are next to each other, so they are one citation of lines 5–12
      // under their common heading; its first section holds no query word
      // and is not cited (the default ranking is by words).
      assert(
        JSON.stringify(passages) === JSON.stringify(['[1] papers/garden.md › Garden · lines 5–12', '[2] papers/soil.txt · lines 1–2']),
        `the passages, got ${JSON.stringify(passages)}`,
      );
      // Why each was found (soil.txt is the lexical arm's third: its second,
      // the Soil section, is in [1]).
      const why = await page.$$eval('[data-testid="citation-why"]', (els) => els.map((e) => e.textContent.trim()));
      assert(
        JSON.stringify(why) === JSON.stringify(['matched: water, basil, every, morning, compost, soil · keyword rank 1', 'matched: compost, soil · keyword rank 3']),
        `why this passage, got ${JSON.stringify(why)}`,
      );

      await page.locator('[data-testid="citation-link"][data-cite="1"]').click();
      const viewer = $(page, 'source-viewer');
      await viewer.waitFor({ timeout: WAIT_MS });
      await until(async () => (await $(page, 'source-marked').count()) === 8, 'the cited lines highlighted');
      const marked = await page.$$eval('[data-testid="source-marked"]', (els) => els.map((e) => [Number(e.getAttribute('data-line')), e.querySelector('.txt').textContent.trim()]));
      assert(
        JSON.stringify(marked) ===
          JSON.stringify([[5, '## Water'], [6, ''], [7, 'Water the basil every morning.'], [8, 'Never let the pots dry out.'], [9, ''], [10, '## Soil'], [11, ''], [12, 'Add compost in spring.']]),
        `lines 5–12 highlighted, got ${JSON.stringify(marked)}`,
      );
      assert((await $(page, 'source-name').textContent()).trim() === 'papers/garden.md', 'the viewer names the document');
      assert((await $(page, 'source-where').textContent()).trim() === 'lines 5–12', 'and the lines');
      const visible = await page.locator('[data-testid="source-marked"]').first().isVisible();
      assert(visible, 'the cited lines are in view');
      await page.screenshot({ path: shot });
      await page.keyboard.press('Escape');
      await until(async () => (await viewer.count()) === 0, 'Escape closes the viewer');

      // The card's passage [2] opens soil.txt.
      await page.locator('[data-testid="citation"][data-cite="2"]').click();
      await until(async () => ((await $(page, 'source-name').textContent()) ?? '').trim() === 'papers/soil.txt', 'soil.txt in the viewer');
      await $(page, 'source-close').click();

      // Once removed, a citation of it is refused with Go's sentence, not shown.
      await callOp(base, 'Documents.Remove', garden);
      await until(async () => !(await (await callOp(base, 'Documents.State')).json()).documents.some((d) => d.path === garden), 'garden.md out of the index');
      await page.locator('[data-testid="citation-link"][data-cite="1"]').click();
      await untilSays(page, 'source-error', NOT_INDEXED, 'the refusal in the viewer');
      assert((await $(page, 'source-marked').count()) === 0, 'no text shown for a refused document');
    },
  },

  {
    name: 'documents: the embedding model is chosen from the installed ones, and the documents are re-embedded with it in the background',
    slug: 'documents-embedder',
    async run({ page, base }) {
      await open(page, base);
      await $(page, 'documents-open').click();
      await $(page, 'documents-embedding').waitFor({ timeout: WAIT_MS });
      const select = $(page, 'embedding-select');
      // None, and the fake Ollama's two embedding models (not its chat model).
      await until(async () => (await select.locator('option').count()) === 3, 'none and the two installed embedding models');
      assert((await select.inputValue()) === 'nomic-embed-text', `the chosen model is selected, got "${await select.inputValue()}"`);
      const line = async () => ((await $(page, 'documents-embedder').textContent()) ?? '').trim();
      for (const [model, shown] of [
        ['all-minilm', 'Meaning search: Ollama model all-minilm'],
        // Back to the default, so the cases after this one find it.
        ['nomic-embed-text', 'Meaning search: Ollama model nomic-embed-text'],
      ]) {
        await select.selectOption(model);
        await $(page, 'embedding-use').click();
        await until(async () => (await line()) === shown, `${model} in use`);
        const st = await (await callOp(base, 'Documents.State')).json();
        assert(st.embedding.model === model && st.embedding.status === 'ready' && !st.embedding.target && st.embedding.dimensions > 0,
          `after choosing ${model}: ${JSON.stringify(st.embedding)}`);
        assert(!(await $(page, 'embedding-problem').count()), 'no problem is said for an installed model');
      }
    },
  },
];
