// @vitest-environment jsdom
// The Settings screen's "Model runner" section, mounted in jsdom over a
// host that answers as Quire's does: the runners found, the saved
// runner's models with the host's sentences, and an address on another
// machine refused until the user chooses to send conversations there.
import { flushSync, mount, unmount } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import SettingsPanel from '../src/components/SettingsPanel.svelte';
import type { RunnerModel, SettingsScreen, UserSettings } from '../src/lib/protocol';
import { onThisComputer, SettingsStore } from '../src/lib/settings.svelte';
import type { ModelsTransport } from '../src/lib/transport/models';
import { SettingRefused, type SettingsTransport } from '../src/lib/transport/settings';

async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  flushSync();
}

const LM = 'http://127.0.0.1:1234/v1';
const lmModels: RunnerModel[] = [
  {
    name: 'qwen/qwen3-4b',
    contextLength: 32768,
    contextFrom: "LM Studio's /api/v0/models",
    tools: 'yes',
    embeds: false,
    says: "Context: 32,768 tokens (from LM Studio's /api/v0/models). Takes tools.",
  },
  {
    name: 'gemma-3-1b',
    contextLength: 0,
    tools: 'unknown',
    embeds: false,
    says: 'This server does not say its context length; Quire assumes 8,192 tokens (the context length in Settings). Whether it takes tools this server does not say.',
  },
  { name: 'text-embedding-nomic', contextLength: 2048, tools: 'unknown', embeds: true, says: 'Embeds text for the document index; it does not chat.' },
];

function screen(u: UserSettings): SettingsScreen {
  const openai = u.runner === 'openai';
  return {
    settings: u,
    notesDir: '',
    model: { name: u.model, known: true, contextLength: 32768, canThink: false, canUseTools: true },
    models: [],
    limits: { minNumCtx: 1024, maxNumCtx: 40960, defaultNumCtx: 8192, maxTemperature: 2, maxAboutYou: 2000, maxMcpCallSeconds: 600 },
    profiles: ['minimal', 'ask', 'write'],
    themes: ['system', 'light', 'dark'],
    pinned: {},
    runner: {
      found: [{ name: 'LM Studio', runner: 'openai', url: LM, models: 3 }],
      models: openai ? lmModels : [],
      assumedNumCtx: u.numCtx,
    },
  };
}

/** Refuses what the Go side refuses: another machine without runnerRemote. */
class RunnerHost implements SettingsTransport {
  held = screen({
    ollamaHost: 'http://127.0.0.1:11434',
    model: 'qwen3:4b',
    embedModel: 'nomic-embed-text',
    numCtx: 8192,
    temperature: null,
    think: null,
    aboutYou: '',
    profile: 'ask',
    theme: 'system',
    mcpCallSeconds: 60,
    runner: 'ollama',
    runnerUrl: '',
    runnerRemote: false,
  });
  settings = vi.fn(async () => structuredClone(this.held));
  saveSettings = vi.fn(async (u: UserSettings) => {
    if (u.runner === 'openai' && !u.runnerRemote && !onThisComputer(u.runnerUrl))
      throw new SettingRefused('runnerUrl', 'This address is another machine; tick the box if you mean it.');
    this.held = screen(u);
    return structuredClone(this.held);
  });
  checkOllama = vi.fn(async (address: string) => ({ address, ok: true, models: [], message: 'Ollama answers here.' }));
}

function noModels() {
  return {
    models: vi.fn(async () => ({ installed: [], recommended: [], pulls: [] })),
    pullModel: vi.fn(async () => {}),
    cancelPull: vi.fn(async () => {}),
    deleteModel: vi.fn(async () => {}),
    subscribePulls: vi.fn(() => () => {}),
  } satisfies ModelsTransport;
}

async function panel(host: RunnerHost) {
  const s = new SettingsStore(host, { debounceMs: 0, memory: null, theme: () => () => {} });
  await s.openScreen();
  const target = document.createElement('div');
  document.body.append(target);
  const p = mount(SettingsPanel, { target, props: { settings: s, models: noModels() } });
  await settle();
  const q = <T extends Element = HTMLElement>(id: string) => target.querySelector<T>(`[data-testid="${id}"]`);
  return { s, target, p, q };
}

describe('onThisComputer', () => {
  it.each([
    ['http://127.0.0.1:1234/v1', true],
    ['localhost:8080', true],
    ['http://[::1]:1337', true],
    ['http://192.168.1.20:1234/v1', false],
    ['http://0.0.0.0:1234', false],
    ['https://llm.example.com/v1', false],
  ])('%s is on this computer: %s', (address, want) => {
    expect(onThisComputer(address)).toBe(want);
  });
});

describe('RunnerSettings', () => {
  it('chooses a runner found on its port, then lists its models with what each can do and picks them', async () => {
    const host = new RunnerHost();
    const { s, q, target, p } = await panel(host);
    expect(q('settings-runner')?.querySelector('h3')?.textContent).toBe('Model runner');
    expect(q<HTMLInputElement>('settings-runner-ollama')?.checked).toBe(true);
    const lm = q<HTMLInputElement>('settings-runner-found')!;
    expect(lm.parentElement?.textContent).toContain('LM Studio at http://127.0.0.1:1234/v1 (3 models)');

    lm.click();
    await settle();
    expect(q('settings-runner-pending')).not.toBeNull();
    expect(q('settings-host')).toBeNull(); // the Ollama address is Ollama's alone
    q<HTMLButtonElement>('settings-save')!.click();
    await settle();
    expect(host.saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ runner: 'openai', runnerUrl: LM, runnerRemote: false }));
    expect(q('settings-runner-pending')).toBeNull();

    const says = [...target.querySelectorAll('[data-testid="settings-runner-model-says"]')].map((e) => e.textContent);
    expect(says[0]).toBe("Context: 32,768 tokens (from LM Studio's /api/v0/models). Takes tools.");
    expect(says[1]).toContain('This server does not say its context length; Quire assumes 8,192 tokens');
    expect(s.chatModels).toEqual(['qwen/qwen3-4b', 'gemma-3-1b']);
    expect(s.embedModels).toEqual(['text-embedding-nomic']);
    // A context the server says bounds the slider; one it does not leaves Quire's bound.
    s.edit({ model: 'qwen/qwen3-4b' });
    expect(s.maxNumCtx).toBe(32768);

    const items = [...target.querySelectorAll<HTMLElement>('[data-testid="settings-runner-model"]')];
    items[1].querySelector<HTMLButtonElement>('[data-testid="settings-runner-use-chat"]')!.click();
    items[2].querySelector<HTMLButtonElement>('[data-testid="settings-runner-use-embed"]')!.click();
    await settle();
    expect(s.draft?.model).toBe('gemma-3-1b');
    expect(s.draft?.embedModel).toBe('text-embedding-nomic');
    expect(s.maxNumCtx).toBe(40960);
    unmount(p);
  });

  it('asks before conversations leave this laptop, and the host refuses without the choice', async () => {
    const host = new RunnerHost();
    const { s, q, p } = await panel(host);
    q<HTMLInputElement>('settings-runner-other')!.click();
    await settle();
    const url = q<HTMLInputElement>('settings-runner-url')!;
    url.value = 'http://127.0.0.1:8080/v1';
    url.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    expect(q('settings-runner-remote-box')).toBeNull();

    url.value = 'http://192.168.1.20:1234/v1';
    url.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    expect(q('settings-runner-remote-box')?.textContent).toContain('would leave this laptop');
    q<HTMLButtonElement>('settings-save')!.click();
    await settle();
    expect(q('settings-error-runnerUrl')?.textContent).toContain('another machine');
    expect(host.held.settings.runner).toBe('ollama');

    q<HTMLInputElement>('settings-runner-remote')!.click();
    await settle();
    expect(s.draft?.runnerRemote).toBe(true);
    q<HTMLButtonElement>('settings-save')!.click();
    await settle();
    expect(host.held.settings).toMatchObject({ runner: 'openai', runnerUrl: 'http://192.168.1.20:1234/v1', runnerRemote: true });

    // Another address is another choice: the consent does not carry over.
    s.chooseRunner('openai', 'http://10.0.0.9:1234/v1');
    expect(s.draft?.runnerRemote).toBe(false);
    unmount(p);
  });
});
