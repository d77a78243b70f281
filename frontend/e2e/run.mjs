// End-to-end tests in real Chromium (playwright-core, the system browser; no
// browser download) against the real backend whose printed link (with its
// secret) is QUIRE_E2E_URL, and whose
// fixtures (the fake model's prompts, folders) are in QUIRE_E2E_FIXTURES:
// test/e2e/browser_test.go assembles `quire serve` over the fake Ollama and
// runs this (`go test -tags e2e -run TestBrowser ./test/e2e/`). One
// screenshot per case goes to frontend/test-artifacts/. A case's line is
// "✓ [slug] name (ms)" or "✗ [slug] …"; the last line is "N passed, M failed".
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { cases } from './cases.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const ARTIFACTS = here('../test-artifacts');
const CHROMIUM = process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium';
const CASE_TIMEOUT_MS = Number(process.env.QUIRE_E2E_CASE_TIMEOUT_MS ?? 45000);
const only = process.env.QUIRE_E2E_ONLY ? new RegExp(process.env.QUIRE_E2E_ONLY, 'i') : null;

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([
    promise.finally(() => clearTimeout(t)),
    new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms))),
  ]);
}

async function main() {
  // QUIRE_E2E_URL is the link quire serve printed, secret and all; the
  // cases open it (cases.mjs) and address the bare origin otherwise.
  const base = process.env.QUIRE_E2E_URL ? new URL(process.env.QUIRE_E2E_URL).origin : '';
  if (!base || !process.env.QUIRE_E2E_FIXTURES) {
    console.error('The cases run against the real backend: `go test -count=1 -tags e2e -run TestBrowser ./test/e2e/` (after `npm run build`).');
    console.log('0 passed, 1 failed');
    return 1;
  }
  if (!existsSync(CHROMIUM)) {
    console.error(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set QUIRE_CHROMIUM).`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  mkdirSync(ARTIFACTS, { recursive: true });

  console.log(`e2e against ${base}`);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });

  let passed = 0;
  let failed = 0;
  try {
    for (const [i, c] of cases.entries()) {
      if (only && !only.test(c.name)) continue;
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const pageErrors = [];
      page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
      const shot = `${ARTIFACTS}/${String(i + 1).padStart(2, '0')}-${c.slug}.png`;
      rmSync(shot, { force: true });
      rmSync(shot.replace(/\.png$/, '-FAILED.png'), { force: true });
      const started = Date.now();
      try {
        await withTimeout(c.run({ page, context, base, shot }), CASE_TIMEOUT_MS, c.name);
        if (pageErrors.length) throw new Error(`uncaught page error: ${pageErrors[0]}`);
        // A case may take its own screenshot at its most telling moment.
        if (!existsSync(shot)) await page.screenshot({ path: shot }).catch(() => {});
        passed++;
        console.log(`✓ [${c.slug}] ${c.name} (${Date.now() - started} ms)`);
      } catch (e) {
        failed++;
        await page.screenshot({ path: shot.replace(/\.png$/, '-FAILED.png') }).catch(() => {});
        console.log(`✗ [${c.slug}] ${c.name} (${Date.now() - started} ms)\n    ${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n    ')}`);
      } finally {
        await context.close().catch(() => {});
      }
    }
  } finally {
    await browser.close().catch(() => {});
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 || passed === 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e?.stack ?? e);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
