import { describe, expect, it, vi } from 'vitest';
import { groupMemory, MemoryStore, noteLabel } from '../src/lib/memory.svelte';
import type { MemoryItem, MemoryList } from '../src/lib/protocol';
import { HttpTransport } from '../src/lib/transport/http';
import { memoryList, type MemoryHost } from '../src/lib/transport/transport';
import { WailsTransport, type WailsApp } from '../src/lib/transport/wails';
import { memoryItem } from './memoryitem';
import { bareApp } from './wailsapp';

describe('groupMemory', () => {
  it('puts pending first, then preferences, facts, this conversation and others, leaving out empty groups', () => {
    const items = [
      memoryItem('f1'),
      memoryItem('w-other', { kind: 'working', note: 'open', session: 's2' }),
      memoryItem('p1', { kind: 'preference' }),
      memoryItem('pend', { status: 'pending' }),
      memoryItem('w-here', { kind: 'working', note: 'attempt', session: 's1' }),
    ];
    const groups = groupMemory(items, 's1');
    expect(groups.map((g) => [g.key, g.items.map((i) => i.id)])).toEqual([
      ['pending', ['pend']],
      ['preference', ['p1']],
      ['fact', ['f1']],
      ['working', ['w-here']],
      ['other-working', ['w-other']],
    ]);
    expect(groupMemory([memoryItem('f1')], null).map((g) => g.key)).toEqual(['fact']);
    expect(groupMemory([], 's1')).toEqual([]);
  });
  it('names working-memory notes', () => {
    expect([noteLabel('conclusion'), noteLabel('open'), noteLabel('attempt'), noteLabel(undefined)]).toEqual([
      'Conclusion',
      'Open sub-task',
      'Tried',
      'Note',
    ]);
  });
});

/** An in-memory host that refuses what Quire refuses. */
class FakeMemory implements MemoryHost {
  list: MemoryList & { items: MemoryItem[] } = { items: [memoryItem('a'), memoryItem('b', { status: 'pending' })], approval: false, learn: false };
  memory = vi.fn(async () => structuredClone(this.list));
  editMemory = vi.fn(async (id: string, text: string) => {
    if (!text.trim()) throw new Error('The memory text is empty: write the fact or preference to remember.');
    const it = this.list.items.find((i) => i.id === id);
    if (!it) throw new Error(`No memory item has the id "${id}"`);
    it.text = text;
    return it;
  });
  forgetMemory = vi.fn(async (id: string) => {
    this.list.items = this.list.items.filter((i) => i.id !== id);
  });
  reviewMemory = vi.fn(async (id: string, approve: boolean) => {
    if (approve) this.list.items.find((i) => i.id === id)!.status = 'kept';
    else this.list.items = this.list.items.filter((i) => i.id !== id);
  });
  setMemorySettings = vi.fn(async (s: { approval?: boolean; learn?: boolean }) => {
    this.list = { ...this.list, ...s };
    return structuredClone(this.list);
  });
}

describe('MemoryStore', () => {
  it('shows the host list after each action', async () => {
    const host = new FakeMemory();
    const m = new MemoryStore(host);
    await m.load();
    expect(m.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(await m.edit('a', 'new text')).toBe(true);
    expect(m.items[0].text).toBe('new text');
    await m.review('b', true);
    expect(m.items[1].status).toBe('kept');
    await m.forget('a');
    expect(m.items.map((i) => i.id)).toEqual(['b']);
    await m.setApproval(true);
    await m.setLearn(true);
    expect([m.approval, m.learn]).toEqual([true, true]);
    expect(host.setMemorySettings.mock.calls).toEqual([[{ approval: true }], [{ learn: true }]]);
  });
  it('keeps the list and shows the host sentence when an action fails', async () => {
    const host = new FakeMemory();
    const m = new MemoryStore(host);
    await m.load();
    expect(await m.edit('a', '  ')).toBe(false);
    expect(m.error).toBe('The memory text is empty: write the fact or preference to remember.');
    expect(m.items[0].text).toBe('text a');
    expect(await m.edit('zz', 'x')).toBe(false);
    expect(m.error).toContain('"zz"');
    await m.forget('a');
    expect(m.error).toBeNull();
  });
});

describe('memory over HTTP', () => {
  it('posts each operation to its derived route and passes errors through', async () => {
    const calls: [string, string, string | undefined][] = [];
    const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
      calls.push([init?.method ?? 'GET', String(url).replace('http://q', ''), init?.body as string | undefined]);
      if (String(url).endsWith('EditMemory')) return new Response(JSON.stringify({ error: 'No memory item has the id "nope"' }), { status: 404 });
      if (!String(url).endsWith('MemoryList')) return new Response(null, { status: 204 });
      return new Response(JSON.stringify({ items: null, approval: true }), { status: 200 });
    });
    const t = new HttpTransport('http://q', { fetch: fetch as typeof globalThis.fetch });
    expect(await t.memory()).toEqual({ items: [], approval: true, learn: false });
    await t.forgetMemory('a/b');
    await t.reviewMemory('x', false);
    await t.setMemorySettings({ learn: true });
    await expect(t.editMemory('nope', 'x')).rejects.toThrow('No memory item has the id "nope"');
    expect(calls).toEqual([
      ['POST', '/api/op/Memory.MemoryList', '[]'],
      ['POST', '/api/op/Memory.ForgetMemory', '["a/b"]'],
      ['POST', '/api/op/Memory.ReviewMemory', '["x",false]'],
      ['POST', '/api/op/Memory.SetMemoryLearning', '[true]'],
      ['POST', '/api/op/Memory.MemoryList', '[]'],
      ['POST', '/api/op/Memory.EditMemory', '["nope","x"]'],
    ]);
  });
});

describe('memory in the window', () => {
  it('calls the operations through Op after the handshake; a Go error is its sentence', async () => {
    const order: string[] = [];
    const app: WailsApp = {
      ...bareApp({
        'Memory.MemoryList': () => {
          order.push('MemoryList');
          return { items: [memoryItem('a')], approval: false, learn: true };
        },
        'Memory.ForgetMemory': (id: string) => {
          order.push(`ForgetMemory ${id}`);
        },
        'Memory.SetMemoryApproval': (on: boolean) => {
          order.push(`SetMemoryApproval ${on}`);
        },
        'Memory.EditMemory': () => Promise.reject('The memory text is empty: write the fact or preference to remember.'),
      }),
      Handshake: async () => {
        order.push('Handshake');
        return '1.0';
      },
    };
    const t = new WailsTransport(app, undefined);
    expect((await t.memory()).items?.map((i) => i.id)).toEqual(['a']);
    await t.forgetMemory('a');
    expect((await t.setMemorySettings({ approval: true })).learn).toBe(true);
    await expect(t.editMemory('a', '')).rejects.toThrow('The memory text is empty');
    expect(order).toEqual(['Handshake', 'MemoryList', 'ForgetMemory a', 'SetMemoryApproval true', 'MemoryList']);
  });
  it('memoryList fills in what a host left out', () => {
    expect(memoryList(null)).toEqual({ items: [], approval: false, learn: false });
  });
});

describe('MemoryStore.refresh', () => {
  it('shows the new list and keeps the sentence of a failed action', async () => {
    const host = new FakeMemory();
    const m = new MemoryStore(host);
    await m.load();
    await m.edit('a', '');
    host.list.items.push(memoryItem('c'));
    await m.refresh();
    expect(m.items.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(m.error).toContain('empty');
    host.memory.mockRejectedValueOnce(new Error('gone'));
    await m.refresh();
    expect(m.items).toHaveLength(3);
  });
});
