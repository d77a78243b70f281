// @vitest-environment jsdom
// The help drawer's About: read by operation (Settings.About) through the
// page's transport, and nothing shown when the host cannot say.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ShortcutHelp from '../src/components/ShortcutHelp.svelte';
import { ShortcutRegistry } from '../src/lib/shortcuts';

let app: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (app) unmount(app);
  app = null;
  document.body.innerHTML = '';
});

const about = { version: 'v1.4.0', protocol: '1.0', go: 'go1.27.3', dataDir: '/home/ann/.local/share/quire', notesDir: '', ollama: 'http://127.0.0.1:11434', model: 'qwen3:4b' };

describe('the help drawer', () => {
  it('says what this Quire is and where it keeps things', async () => {
    const op = vi.fn(async () => about);
    app = mount(ShortcutHelp, { target: document.body, props: { shortcuts: new ShortcutRegistry(), host: { op: op as never }, onclose: () => {} } });
    await tick();
    await Promise.resolve();
    flushSync();
    expect(op).toHaveBeenCalledWith('Settings.About');
    const text = document.querySelector('[data-testid="about"]')?.textContent ?? '';
    expect(text).toContain('Quire v1.4.0 · protocol 1.0 · go1.27.3');
    expect(text).toContain('/home/ann/.local/share/quire');
    expect(text).toContain('none chosen yet');
  });

  it('shows no About when the host cannot say', async () => {
    const op = vi.fn(async () => Promise.reject(new Error('settings cannot be changed here')));
    app = mount(ShortcutHelp, { target: document.body, props: { shortcuts: new ShortcutRegistry(), host: { op: op as never }, onclose: () => {} } });
    await tick();
    await Promise.resolve();
    flushSync();
    expect(document.querySelector('[data-testid="about"]')).toBeNull();
    expect(document.querySelector('[data-testid="shortcut-help"]')).not.toBeNull();
  });
});
