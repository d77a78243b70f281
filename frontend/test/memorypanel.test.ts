// @vitest-environment jsdom
// The memory panel mounted in jsdom over a real MemoryStore and a host whose
// list the test gives: it shows how each item was let in, and its "remember
// without asking" box is the host's approval turned around.
import { flushSync, mount, unmount } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import MemoryPanel from '../src/components/MemoryPanel.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';
import { approvalLabel } from '../src/lib/memory.svelte';
import type { MemoryList } from '../src/lib/protocol';
import { memoryItem } from './memoryitem';

async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  flushSync();
}

describe('approvalLabel', () => {
  it('says how the user let each item in', () => {
    expect(
      [
        memoryItem('a', { approved: 'asked' }),
        memoryItem('b', { approved: 'panel' }),
        memoryItem('c', { approved: 'user' }),
        memoryItem('d', { approved: 'unasked' }),
        memoryItem('e', { status: 'pending' }),
      ].map(approvalLabel),
    ).toEqual(['You said yes when asked', 'Kept by you in this panel', 'Written by you', 'Remembered without asking', 'Waiting for your approval']);
  });
});

// Quire's own working notes (a search it tried) are not memories "let in
// without asking", and read in words (issue 31: `list_notes {"path":"inbox"}
// → success: …` under "Remembered without asking", with that box unticked).
describe('Quire’s own working notes', () => {
  it('are labelled as Quire’s, also when the host marked them unasked', () => {
    expect(approvalLabel(memoryItem('a', { kind: 'working', note: 'attempt', origin: 'auto', approved: 'own' }))).toBe('Quire’s own note while working');
    expect(approvalLabel(memoryItem('b', { kind: 'working', note: 'attempt', origin: 'auto', approved: 'unasked' }))).toBe('Quire’s own note while working');
    expect(approvalLabel(memoryItem('c', { kind: 'fact', origin: 'proposal', approved: 'unasked' }))).toBe('Remembered without asking');
  });

  it('show a search tried in words, its exact record one click away', async () => {
    const raw = 'list_notes {"path":"inbox"} → success: 12 notes in inbox';
    const list: MemoryList = { items: [memoryItem('w', { kind: 'working', note: 'attempt', origin: 'auto', approved: 'unasked', text: raw })], approval: true, learn: false };
    const host = { memory: vi.fn(async () => structuredClone(list)), setMemorySettings: vi.fn(), editMemory: vi.fn(), forgetMemory: vi.fn(), reviewMemory: vi.fn() };
    const chat = { host, sessions: [{ id: 's1', title: 'Tags' }], activeId: 's1', select: vi.fn() } as unknown as ChatStore;
    const target = document.createElement('div');
    document.body.append(target);
    const panel = mount(MemoryPanel, { target, props: { chat, onclose: () => {} } });
    await settle();
    const item = target.querySelector('[data-testid="memory-item"]')!;
    expect(item.querySelector('[data-testid="memory-approved"]')?.textContent?.trim()).toBe('Quire’s own note while working');
    expect(item.querySelector('summary')?.textContent).toBe('Listed the notes (path: inbox): done. 12 notes in inbox');
    expect(item.querySelector('[data-testid="memory-raw"]')?.textContent).toBe(raw);
    unmount(panel);
    target.remove();
  });
});

describe('MemoryPanel', () => {
  it('shows each item’s approval, and turns "remember without asking" on as approval off', async () => {
    let list: MemoryList = {
      items: [memoryItem('a', { approved: 'asked', kind: 'preference', text: 'Tags are lower-case.' }), memoryItem('b', { approved: 'unasked' }), memoryItem('c', { status: 'pending' })],
      approval: true,
      learn: false,
    };
    const host = {
      memory: vi.fn(async () => structuredClone(list)),
      setMemorySettings: vi.fn(async (s: { approval?: boolean }) => {
        list = { ...list, ...s };
        return structuredClone(list);
      }),
      editMemory: vi.fn(),
      forgetMemory: vi.fn(),
      reviewMemory: vi.fn(),
    };
    const chat = { host, sessions: [{ id: 's1', title: 'Tags' }], activeId: 's1', select: vi.fn() } as unknown as ChatStore;
    const target = document.createElement('div');
    document.body.append(target);
    const panel = mount(MemoryPanel, { target, props: { chat, onclose: () => {} } });
    await settle();

    const approvals = [...target.querySelectorAll('[data-testid="memory-item"]')].map((li) => [
      li.getAttribute('data-id'),
      li.querySelector('[data-testid="memory-approved"]')?.textContent?.trim(),
    ]);
    expect(approvals).toEqual([
      ['c', 'Waiting for your approval'],
      ['a', 'You said yes when asked'],
      ['b', 'Remembered without asking'],
    ]);
    const box = target.querySelector<HTMLInputElement>('[data-testid="memory-without-asking"]')!;
    expect(box.checked).toBe(false);
    expect(target.querySelector('[data-testid="memory-without-asking-hint"]')?.textContent).toContain('asks before');

    box.click();
    await settle();
    expect(host.setMemorySettings).toHaveBeenCalledWith({ approval: false });
    expect(box.checked).toBe(true);
    expect(target.querySelector('[data-testid="memory-without-asking-hint"]')?.textContent).toContain('read a document or a note still asks');
    unmount(panel);
    target.remove();
  });
});
