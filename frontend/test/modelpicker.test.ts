// @vitest-environment jsdom
// The model picker under the composer (issue 31: no model picker where one
// chats, only a free-text field deep in Settings): the installed models
// that can chat, the current one chosen, a choice saved through the
// Settings screen's own save.
import { flushSync, mount, unmount } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import ModelPicker from '../src/components/ModelPicker.svelte';
import type { ModelInfo, SettingsScreen, UserSettings } from '../src/lib/protocol';

const model = (name: string, capabilities: string[]): ModelInfo => ({ name, size: 1, capabilities, contextLength: 4096, loaded: false }) as ModelInfo;

describe('ModelPicker', () => {
  it('lists the models that can chat and saves the one chosen', async () => {
    let saved: UserSettings = { model: 'qwen3:4b' } as UserSettings;
    const screen = () => ({ settings: structuredClone(saved), pinned: {}, models: [] }) as unknown as SettingsScreen;
    const host = {
      settings: vi.fn(async () => screen()),
      saveSettings: vi.fn(async (s: UserSettings) => ((saved = s), screen())),
      models: vi.fn(async () => ({
        installed: [model('qwen3:4b', ['completion', 'tools']), model('nomic-embed-text:latest', ['embedding']), model('llama3.2:latest', ['completion'])],
        recommended: [],
        pulls: [],
      })),
    };
    const target = document.createElement('div');
    document.body.append(target);
    const picker = mount(ModelPicker, { target, props: { host: host as never } });
    await vi.waitFor(() => expect(target.querySelector('[data-testid="model-picker"]')).not.toBeNull());
    flushSync();
    const select = target.querySelector<HTMLSelectElement>('[data-testid="model-picker"]')!;
    expect([...select.options].map((o) => o.textContent)).toEqual(['qwen3:4b', 'llama3.2:latest (no tools)']);
    expect(select.value).toBe('qwen3:4b');
    select.value = 'llama3.2:latest';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await vi.waitFor(() => expect(host.saveSettings).toHaveBeenCalledTimes(1));
    expect(saved.model).toBe('llama3.2:latest');
    unmount(picker);
    target.remove();
  });
});
