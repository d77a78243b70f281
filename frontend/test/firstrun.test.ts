// @vitest-environment jsdom
// The first run: which screen a report calls for, the health reports Go
// sends on its own, and the one-click download with its progress, over a
// real ChatStore and ModelDownload and a host whose answers the test gives.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Composer from '../src/components/Composer.svelte';
import DownloadFinished from '../src/components/DownloadFinished.svelte';
import FirstRun from '../src/components/FirstRun.svelte';
import HealthBanner from '../src/components/HealthBanner.svelte';
import { ChatStore, firstRunOf } from '../src/lib/chat.svelte';
import { downloadSize, ModelDownload, pulled } from '../src/lib/download.svelte';
import type { Check, DoctorReport, ModelsState, PullProgress } from '../src/lib/protocol';
import type { Transport } from '../src/lib/transport/transport';

const ollamaDown: Check = { name: 'Ollama', ok: false, detail: 'not reachable: connection refused', remedy: 'Install Ollama … or point Quire at it with --ollama-host or OLLAMA_HOST', hint: 'Install Ollama, the program that runs the model on this computer, and start it; Quire notices on its own.', action: 'install-ollama' };
const ollamaUp: Check = { name: 'Ollama', ok: true, detail: 'version 0.17.4' };
const noModel: Check = { name: 'Chat model', ok: false, detail: 'qwen3:4b is not installed', remedy: 'Run `ollama pull qwen3:4b`, or choose an installed model with --model or QUIRE_MODEL.', hint: 'No installed model can use tools: download one in one click, or choose one in Settings.', action: 'download-model' };
const otherModel: Check = { ...noModel, hint: 'Choose a model that can use tools in Settings (installed: llama3.2:latest).', action: 'settings' };
const report = (...checks: Check[]): DoctorReport => ({ ok: checks.every((c) => c.ok), checks });

const state: ModelsState = {
  installed: [],
  recommended: [{ name: 'qwen3:4b', role: 'chat', summary: 'a small model that can use tools', downloadSize: 2_500_000_000, installed: false }],
  pulls: [],
};
const pull = (over: Partial<PullProgress>): PullProgress => ({ model: 'qwen3:4b', state: 'running', status: 'pulling', completed: 0, total: 0, atMs: 0, startedMs: 0, ...over });

/** A host: doctor() answers `reports` in turn; the test sends health and pull progress itself. */
function host(reports: DoctorReport[]) {
  let health: (r: DoctorReport) => void = () => {};
  let pulls: (p: PullProgress) => void = () => {};
  const t = {
    // The rest of the host the store starts with: no chats, no notes folder.
    subscribe: () => () => {},
    listSessions: async () => [],
    notesFolder: async () => '',
    doctor: vi.fn(async () => reports.shift() ?? report()),
    subscribeHealth: vi.fn((cb: (r: DoctorReport) => void) => ((health = cb), () => {})),
    models: vi.fn(async () => state),
    pullModel: vi.fn(async () => {}),
    cancelPull: vi.fn(async () => {}),
    subscribePulls: vi.fn((cb: (p: PullProgress) => void) => ((pulls = cb), () => void unsubscribed++)),
  };
  let unsubscribed = 0;
  return { t, transport: t as unknown as Transport, health: (r: DoctorReport) => health(r), pull: (p: PullProgress) => pulls(p), unsubscribed: () => unsubscribed };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

let mounted: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});
const q = (id: string) => document.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;

describe('which first screen', () => {
  it.each([
    { name: 'no report yet', r: null, want: null },
    { name: 'all well', r: report(ollamaUp), want: null },
    { name: 'no Ollama', r: report(ollamaDown), want: 'install' },
    { name: 'no model that can use tools', r: report(ollamaUp, noModel), want: 'download' },
    { name: 'another installed model can: the banner points at Settings', r: report(ollamaUp, otherModel), want: null },
  ])('$name', ({ r, want }) => expect(firstRunOf(r)).toBe(want));
});

// Issue 31: without Ollama the composer still sent, and each message left a
// saved chat holding the raw connection error. Send is off, with why and
// what to do, until Go reports that a reply can come.
describe('Send without Ollama', () => {
  it('is off with the reason and the fix, and comes back when Ollama does', async () => {
    const h = host([report(ollamaDown)]);
    const send = vi.fn(async () => ({ session: 's1', runId: 'r1' }));
    Object.assign(h.t, { sendMessage: send, createSession: vi.fn() });
    const chat = new ChatStore(h.transport);
    await chat.start();
    mounted = mount(Composer, { target: document.body, props: { chat } });
    flushSync();
    const box = q('composer') as HTMLTextAreaElement;
    box.value = 'hello';
    box.dispatchEvent(new Event('input'));
    flushSync();
    const button = q('send') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.title).toBe('Quire cannot answer: Ollama is not running.');
    expect(q('send-blocked')!.textContent).toContain('Ollama is not running');
    expect(q('send-blocked')!.textContent).toContain(ollamaDown.hint);
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await settle();
    expect(send).not.toHaveBeenCalled();

    h.health(report(ollamaUp, noModel));
    flushSync();
    expect(q('send-blocked')!.textContent).toContain('no model that can chat');
    h.health(report(ollamaUp));
    flushSync();
    expect(q('send-blocked')).toBeNull();
    expect(button.disabled).toBe(false);
  });
});

describe('the first run', () => {
  it('turns from install to download to the chat as Go reports each change', async () => {
    const h = host([report(ollamaDown)]);
    const chat = new ChatStore(h.transport);
    await chat.start();
    expect(chat.firstRun).toBe('install');
    const download = new ModelDownload(h.transport, () => void chat.recheck());
    const stop = download.start();
    await settle();
    mounted = mount(FirstRun, { target: document.body, props: { chat, download } });
    flushSync();
    expect(q('first-run')!.dataset.state).toBe('install');
    expect(q('install-line')!.textContent).toBe('curl -fsSL https://ollama.com/install.sh | sh');
    expect(document.body.textContent).toContain('https://ollama.com/download');
    expect(document.body.textContent).not.toContain('OLLAMA_HOST');

    // Ollama started: Go noticed on its own.
    h.health(report(ollamaUp, noModel));
    flushSync();
    expect(q('first-run')!.dataset.state).toBe('download');
    expect(q('download-model')!.textContent).toContain('Download qwen3:4b (2.5 GB)');

    // No pull stream is held before the click: a page has few connections.
    expect(h.t.subscribePulls).not.toHaveBeenCalled();
    q('download-model')!.click();
    await settle();
    expect(h.t.pullModel).toHaveBeenCalledWith('qwen3:4b');
    expect(h.t.subscribePulls).toHaveBeenCalledTimes(1);
    h.pull(pull({ completed: 1_000_000_000, total: 2_500_000_000, atMs: 10_000 }));
    flushSync();
    expect(q('download-status')!.textContent).not.toContain('left'); // one reading: no speed yet
    h.pull(pull({ completed: 1_200_000_000, total: 2_500_000_000, atMs: 12_000 }));
    flushSync();
    expect(q('download-progress')!.getAttribute('aria-valuenow')).toBe('48');
    // Issue 31: the download showed no speed or time left.
    expect(q('download-status')!.textContent?.replace(/\s+/g, ' ')).toContain('1.2 GB of 2.5 GB (48%) · 100 MB/s · 13 s left');

    h.t.doctor.mockResolvedValueOnce(report(ollamaUp));
    h.pull(pull({ state: 'done', completed: 2_500_000_000, total: 2_500_000_000 }));
    const focus = chat.focusRequest;
    await settle();
    expect(chat.firstRun).toBeNull();
    expect(chat.focusRequest).toBe(focus + 1); // the composer takes the keyboard
    expect(h.unsubscribed()).toBe(1); // and the pull stream is let go
    // Issue 31: the banner holding the bar just vanished; a note says the
    // download finished, until it is closed.
    unmount(mounted!);
    mounted = mount(DownloadFinished, { target: document.body, props: { download } });
    flushSync();
    expect(q('download-finished')!.textContent).toContain('qwen3:4b is downloaded and ready');
    q('download-finished-close')!.click();
    flushSync();
    expect(q('download-finished')).toBeNull();
    stop();
  });

  it('says why a download failed and offers it again', async () => {
    const h = host([]);
    const download = new ModelDownload(h.transport);
    download.start();
    await settle();
    const chat = new ChatStore(h.transport);
    chat.doctor = report(ollamaUp, noModel);
    mounted = mount(FirstRun, { target: document.body, props: { chat, download } });
    flushSync();
    q('download-model')!.click();
    await settle();
    h.pull(pull({ state: 'failed', error: 'Ollama could not reach the model registry: check the internet connection, then try again.', problem: 'offline' }));
    flushSync();
    expect(q('download-error')!.textContent).toContain('check the internet connection');
    expect(q('download-model')).not.toBeNull();
  });

  // Issue 31: "Stopped" did not say how much of the download was kept.
  it('says how much a stopped download kept, and offers Resume', async () => {
    const h = host([]);
    const download = new ModelDownload(h.transport);
    download.start();
    await settle();
    const chat = new ChatStore(h.transport);
    chat.doctor = report(ollamaUp, noModel);
    mounted = mount(FirstRun, { target: document.body, props: { chat, download } });
    flushSync();
    q('download-model')!.click();
    await settle();
    h.pull(pull({ state: 'cancelled', completed: 1_200_000_000, total: 2_500_000_000 }));
    flushSync();
    expect(q('download-stopped')!.textContent?.trim()).toBe('Stopped with 1.2 GB of 2.5 GB kept. Resume continues from there.');
    expect(q('download-model')!.textContent).toContain('Resume qwen3:4b');
  });

  it('a banner dismissed shows again when the checks fail differently, and says the window\'s hint, not the flags', async () => {
    const h = host([report(ollamaUp, otherModel)]);
    const chat = new ChatStore(h.transport);
    await chat.start();
    chat.dismissBanner();
    expect(chat.showBanner).toBe(false);
    h.health(report(ollamaDown));
    expect(chat.showBanner).toBe(true);
    const settings = vi.fn();
    mounted = mount(HealthBanner, { target: document.body, props: { chat, onsettings: settings } });
    flushSync();
    expect(document.body.textContent).toContain('Quire notices on its own');
    expect(document.body.textContent).not.toContain('--ollama-host');
    q('banner-settings')!.click();
    expect(settings).toHaveBeenCalled();
    q('banner-recheck')!.click();
    await settle();
    expect(h.t.doctor).toHaveBeenCalledTimes(2);
  });
});

describe('download figures', () => {
  it.each([
    [2_500_000_000, '2.5 GB'],
    [274_000_000, '274.0 MB'],
    [999, '999 bytes'],
    [0, ''],
  ])('%d bytes is %s', (n, want) => expect(downloadSize(n)).toBe(want));
  it('a share of the announced layers, 0 before any', () => {
    expect(pulled(null)).toBe(0);
    expect(pulled(pull({ completed: 5, total: 0 }))).toBe(0);
    expect(pulled(pull({ completed: 1, total: 4 }))).toBe(0.25);
  });
});
