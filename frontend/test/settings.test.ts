// @vitest-environment jsdom
// The Settings screen: its store over a host that refuses what Quire
// refuses, the two transports' refusals (a field and its sentence), the
// theme on the page, and the panel mounted in jsdom showing a refusal next
// to its field.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import SettingsPanel from '../src/components/SettingsPanel.svelte';
import type { MCPTransport } from '../src/lib/transport/mcp';
import type { ModelsTransport } from '../src/lib/transport/models';
import type { ModelInfo, OllamaCheck, SettingsScreen, Theme, UserSettings } from '../src/lib/protocol';
import { APPLY_NOTE, SettingsStore, showTheme, THEME_KEY, type ThemeMemory } from '../src/lib/settings.svelte';
import { HttpTransport } from '../src/lib/transport/http';
import { SettingRefused, type SettingsTransport } from '../src/lib/transport/settings';
import { WailsTransport } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  flushSync();
}

function screen(s: Partial<UserSettings> = {}, canThink = true): SettingsScreen {
  return {
    settings: {
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
      ...s,
    },
    notesDir: '',
    model: { name: s.model ?? 'qwen3:4b', known: true, contextLength: 40960, canThink, canUseTools: true },
    models: ['qwen3:4b'],
    limits: { minNumCtx: 1024, maxNumCtx: 40960, defaultNumCtx: 8192, maxTemperature: 2, maxAboutYou: 2000, maxMcpCallSeconds: 600 },
    profiles: ['minimal', 'ask', 'write'],
    themes: ['system', 'light', 'dark'],
    pinned: {},
    runner: { found: [], models: [], assumedNumCtx: 8192 },
  };
}

/** A host holding settings, refusing a temperature over 2 and an empty model as Quire does. */
class FakeSettings implements SettingsTransport {
  held = screen();
  settings = vi.fn(async () => structuredClone(this.held));
  saveSettings = vi.fn(async (u: UserSettings) => {
    if (u.temperature !== null && u.temperature > 2) throw new SettingRefused('temperature', 'The temperature must be between 0 and 2; 3 is not.');
    if (u.mcpCallSeconds < 1 || u.mcpCallSeconds > 600)
      throw new SettingRefused('mcpCallSeconds', `An MCP tool call's deadline must be between 1 and 600 seconds; ${u.mcpCallSeconds} is not.`);
    if (!u.model) throw new Error('Quire could not save the settings: the disk is full.');
    this.held = screen(u);
    return structuredClone(this.held);
  });
  checks: string[] = [];
  answers: ((c: OllamaCheck) => void)[] = [];
  checkOllama = vi.fn((address: string) => {
    this.checks.push(address);
    return new Promise<OllamaCheck>((resolve) => this.answers.push(resolve));
  });
}

function store(host: SettingsTransport, themes: Theme[] = [], memory: ThemeMemory | null = null) {
  return new SettingsStore(host, {
    debounceMs: 300,
    memory,
    theme: (t) => {
      themes.push(t);
      return () => {};
    },
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SettingsStore', () => {
  it('saves every field and shows what the host kept', async () => {
    const host = new FakeSettings();
    const themes: Theme[] = [];
    const s = store(host, themes);
    await s.openScreen();
    expect(s.dirty).toBe(false);
    s.edit({ temperature: 0.4, aboutYou: 'Call me Ada.', theme: 'dark' });
    expect(s.dirty).toBe(true);
    expect(await s.save()).toBe(true);
    expect(host.saveSettings.mock.calls[0][0]).toMatchObject({ temperature: 0.4, aboutYou: 'Call me Ada.', theme: 'dark', model: 'qwen3:4b' });
    expect([s.saved, s.dirty, s.screen?.settings.theme]).toEqual([true, false, 'dark']);
    expect(themes).toEqual(['dark', 'dark']); // shown when chosen, and again as saved
  });

  it('shows a refusal next to its field, and editing the field clears it', async () => {
    const host = new FakeSettings();
    const s = store(host);
    await s.openScreen();
    s.edit({ temperature: 3 });
    expect(await s.save()).toBe(false);
    expect(s.errors).toEqual({ temperature: 'The temperature must be between 0 and 2; 3 is not.' });
    expect(s.error).toBeNull();
    expect(s.screen?.settings.temperature).toBeNull(); // nothing was kept
    s.edit({ aboutYou: 'x' });
    expect(s.errors.temperature).toBeDefined();
    s.edit({ temperature: 1 });
    expect(s.errors).toEqual({});
    s.edit({ model: '' });
    expect(await s.save()).toBe(false);
    expect(s.error).toBe('Quire could not save the settings: the disk is full.');
  });

  it('checks the address once typing pauses and shows only the newest answer', async () => {
    vi.useFakeTimers();
    const host = new FakeSettings();
    const s = store(host);
    await s.openScreen();
    // Opening checks the address in use at once; typing starts again.
    expect(host.checks).toEqual(['http://127.0.0.1:11434']);
    s.edit({ ollamaHost: 'http://10.0.0' });
    vi.advanceTimersByTime(100);
    s.edit({ ollamaHost: 'http://10.0.0.2' });
    vi.advanceTimersByTime(299);
    expect(host.checks).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(host.checks.slice(1)).toEqual(['http://10.0.0.2']);
    expect(s.checking).toBe(true);
    // A newer address is typed while the first check is out.
    s.edit({ ollamaHost: 'http://10.0.0.3' });
    vi.advanceTimersByTime(300);
    expect(host.checks.slice(1)).toEqual(['http://10.0.0.2', 'http://10.0.0.3']);
    host.answers[0]({ address: 'http://127.0.0.1:11434', ok: true, models: [], message: 'an answer too late to show' });
    host.answers[2]({ address: 'http://10.0.0.3:11434', ok: true, version: '0.17.4', models: [], message: 'Ollama 0.17.4 answers here (0 models installed).' });
    await Promise.resolve();
    host.answers[1]({ address: 'http://10.0.0.2:11434', ok: false, models: [], message: 'Nothing answers at http://10.0.0.2:11434: is Ollama running?' });
    await Promise.resolve();
    expect(s.check?.message).toBe('Ollama 0.17.4 answers here (0 models installed).');
    expect(s.checking).toBe(false);
    expect(host.saveSettings).not.toHaveBeenCalled();
  });

  it('puts the saved theme back when the screen closes unsaved', async () => {
    const host = new FakeSettings();
    host.held = screen({ theme: 'light' });
    const themes: Theme[] = [];
    const s = store(host, themes);
    await s.start();
    await s.openScreen();
    s.edit({ theme: 'dark' });
    s.close();
    expect(themes).toEqual(['system', 'light', 'dark', 'light']);
    expect(s.draft?.theme).toBe('light');
  });

  it('shows the theme saved last time before the host answers, and keeps the one saved now', async () => {
    const kept = new Map<string, string>([[THEME_KEY, 'dark']]);
    const memory: ThemeMemory = { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => void kept.set(k, v) };
    const host = new FakeSettings();
    host.held = screen({ theme: 'light' });
    let answer: () => void = () => {};
    const answered = new Promise<void>((r) => (answer = r));
    host.settings = vi.fn(async () => {
      await answered; // Ollama is slow to say what the model can do
      return structuredClone(host.held);
    });
    const themes: Theme[] = [];
    const s = store(host, themes, memory);
    const started = s.start();
    expect(themes).toEqual(['dark']);
    answer();
    await started;
    expect(themes).toEqual(['dark', 'light']);
    expect(kept.get(THEME_KEY)).toBe('light');
    kept.set(THEME_KEY, '<script>');
    const again: Theme[] = [];
    const t = store(new FakeSettings(), again, memory);
    void t.start();
    expect(again[0]).toBe('system');
  });

  it('offers thinking and the context only as the chosen model allows', async () => {
    const host = new FakeSettings() as FakeSettings & { models: () => Promise<{ installed: ModelInfo[]; recommended: []; pulls: [] }> };
    const info = (name: string, capabilities: string[], contextLength: number): ModelInfo => ({ name, size: 1, capabilities, contextLength, loaded: false, modifiedMs: 0 });
    host.models = async () => ({
      installed: [info('qwen3:4b', ['completion', 'tools', 'thinking'], 40960), info('llama3.2:1b', ['completion', 'tools'], 131072), info('nomic-embed-text:latest', ['embedding'], 2048)],
      recommended: [],
      pulls: [],
    });
    const s = store(host);
    await s.openScreen();
    expect([s.canThink, s.maxNumCtx]).toEqual([true, 40960]);
    expect(s.chatModels).toEqual(['qwen3:4b', 'llama3.2:1b']);
    expect(s.embedModels).toEqual(['nomic-embed-text:latest']);
    s.edit({ model: 'llama3.2:1b' });
    expect([s.canThink, s.maxNumCtx]).toEqual([false, 131072]);
  });
});

describe('showTheme', () => {
  it('sets data-theme, following the system for "system"', () => {
    const root = document.createElement('html');
    let dark = true;
    const listeners: (() => void)[] = [];
    const win = {
      matchMedia: () => ({
        get matches() {
          return dark;
        },
        addEventListener: (_: string, f: () => void) => listeners.push(f),
        removeEventListener: (_: string, f: () => void) => listeners.splice(listeners.indexOf(f), 1),
      }),
    } as unknown as Window;
    const stop = showTheme('system', root, win);
    expect([root.dataset.theme, root.dataset.themeChoice]).toEqual(['dark', 'system']);
    dark = false;
    listeners.forEach((f) => f());
    expect(root.dataset.theme).toBe('light');
    stop();
    expect(listeners).toHaveLength(0);
    showTheme('dark', root, win);
    expect([root.dataset.theme, root.dataset.themeChoice]).toEqual(['dark', 'dark']);
  });
});

describe('settings over HTTP', () => {
  it('posts the operations and turns a 400 naming a field into SettingRefused', async () => {
    const calls: [string, string, string | undefined][] = [];
    const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
      calls.push([init?.method ?? 'GET', String(url).replace('http://q', ''), init?.body as string | undefined]);
      if (String(url).endsWith('.CheckOllama')) return new Response(JSON.stringify({ address: 'x', ok: false, models: null, message: 'Nothing answers' }));
      if (String(url).endsWith('.Update')) return new Response(JSON.stringify({ error: 'The theme must be one of system, light, dark.', field: 'theme' }), { status: 400 });
      return new Response(JSON.stringify({ ...screen(), models: null, pinned: null }));
    });
    const t = new HttpTransport('http://q', { fetch: fetch as typeof globalThis.fetch });
    const sc = await t.settings();
    expect([sc.models, sc.pinned]).toEqual([[], {}]);
    const err = await t.saveSettings(sc.settings).catch((e) => e);
    expect(err).toBeInstanceOf(SettingRefused);
    expect([err.field, err.message]).toEqual(['theme', 'The theme must be one of system, light, dark.']);
    expect((await t.checkOllama('x')).models).toEqual([]);
    expect(calls.map((c) => c.slice(0, 2))).toEqual([
      ['POST', '/api/op/Settings.Screen'],
      ['POST', '/api/op/Settings.Update'],
      ['POST', '/api/op/Settings.CheckOllama'],
    ]);
    expect(JSON.parse(calls[2][2]!)).toEqual(['x']);
  });
});

describe('settings in the window', () => {
  it('turns a refused answer into SettingRefused', async () => {
    const t = new WailsTransport(
      {
        ...bareApp({ 'Settings.Screen': () => screen() }),
        SaveSettings: async () => ({ screen: null, refused: { field: 'numCtx', message: 'qwen3:4b was trained for 40,960 tokens: choose at most that.' } }),
      },
      undefined,
    );
    const err = await t.saveSettings(screen().settings).catch((e) => e);
    expect(err).toBeInstanceOf(SettingRefused);
    expect(err.field).toBe('numCtx');
    expect((await t.settings()).settings).toEqual(screen().settings);
  });
});

/** A models host with nothing installed, for the panel's Models section. */
function noModels() {
  return {
    models: vi.fn(async () => ({ installed: [], recommended: [], pulls: [] })),
    pullModel: vi.fn(async () => {}),
    cancelPull: vi.fn(async () => {}),
    deleteModel: vi.fn(async () => {}),
    subscribePulls: vi.fn(() => () => {}),
  } satisfies ModelsTransport;
}

describe('SettingsPanel', () => {
  it('shows the refusal next to its field, the note on when changes apply, and no thinking for a model that cannot', async () => {
    const host = new FakeSettings();
    host.held = screen({}, false);
    const s = store(host);
    await s.openScreen();
    const target = document.createElement('div');
    document.body.append(target);
    const models = noModels();
    const panel = mount(SettingsPanel, { target, props: { settings: s, models } });
    await settle();
    // The Models section is the models screen itself.
    expect(target.querySelector('[data-testid="settings-models"] [data-testid="models-panel"]')).not.toBeNull();
    expect(models.models).toHaveBeenCalled();
    expect(target.querySelector('[data-testid="settings-note"]')?.textContent).toBe(APPLY_NOTE);
    expect(target.querySelector('[data-testid="settings-think"]')).toBeNull();
    expect(target.querySelector('[data-testid="settings-think-none"]')).not.toBeNull();
    const save = target.querySelector<HTMLButtonElement>('[data-testid="settings-save"]')!;
    expect(save.disabled).toBe(true);

    target.querySelector<HTMLInputElement>('[data-testid="settings-temperature-default"]')!.click();
    await settle();
    const temp = target.querySelector<HTMLInputElement>('[data-testid="settings-temperature"]')!;
    temp.value = '3';
    temp.dispatchEvent(new Event("change", { bubbles: true }));
    await settle();
    expect(save.disabled).toBe(false);
    save.click();
    await settle();
    const shown = target.querySelector('[data-testid="settings-error-temperature"]');
    expect(shown?.textContent).toBe('The temperature must be between 0 and 2; 3 is not.');
    // The sentence sits in the temperature's own place, not at the top.
    expect(target.querySelector('[data-section="model"]')?.contains(shown!)).toBe(true);
    expect(target.querySelector('[data-testid="settings-error"]')).toBeNull();
    unmount(panel);
    target.remove();
  });

  it('sets the MCP call deadline beside the servers: a refused value is said by its field, a good one is saved', async () => {
    const host = new FakeSettings();
    const s = store(host);
    await s.openScreen();
    const target = document.createElement('div');
    document.body.append(target);
    const models = noModels();
    const none = async () => {
      throw new Error('not in this test');
    };
    const mcp = {
      confirmsLoosenInDialog: false,
      mcpServers: vi.fn(async () => ({ servers: [], tokens: 0 })),
      putMcpServer: vi.fn(none),
      removeMcpServer: vi.fn(none),
      importMcp: vi.fn(none),
      controlMcpServer: vi.fn(none),
      setMcpTool: vi.fn(none),
      subscribeMcp: vi.fn(() => () => {}),
    } satisfies MCPTransport;
    const panel = mount(SettingsPanel, { target, props: { settings: s, models, mcp } });
    await settle();
    const field = target.querySelector<HTMLInputElement>('[data-testid="settings-mcp-call-seconds"]')!;
    expect(field.value).toBe('60');
    expect(field.max).toBe('600');
    const save = target.querySelector<HTMLButtonElement>('[data-testid="settings-save"]')!;

    field.value = '601';
    field.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    save.click();
    await settle();
    const shown = target.querySelector('[data-testid="settings-error-mcpCallSeconds"]');
    expect(shown?.textContent).toBe("An MCP tool call's deadline must be between 1 and 600 seconds; 601 is not.");
    expect(target.querySelector('[data-section="extensions"]')?.contains(shown!)).toBe(true);
    expect(host.held.settings.mcpCallSeconds).toBe(60);

    field.value = '5';
    field.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(target.querySelector('[data-testid="settings-error-mcpCallSeconds"]')).toBeNull();
    save.click();
    await settle();
    expect(host.saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ mcpCallSeconds: 5 }));
    expect(host.held.settings.mcpCallSeconds).toBe(5);
    unmount(panel);
    target.remove();
  });
});
