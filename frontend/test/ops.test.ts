// The one client of the ports' operations (transport/ops.ts, client.ts):
// an operation goes to the window's bound Op, or to the bound method that
// asks first, or to POST /api/op/{name}, with its arguments in order.
import { describe, expect, it, vi } from 'vitest';
import * as bound from '../wailsjs/go/main/App';
import { OP_CONFIRMED } from '../src/lib/protocol';
import { HttpTransport } from '../src/lib/transport/http';
import { httpOps, opPath, wailsOps } from '../src/lib/transport/ops';
import { WailsTransport } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

describe('the window', () => {
  it('sends an operation to Op with its arguments in order', async () => {
    const Op = vi.fn(async () => ({ root: '/n', path: 'a', entries: [] }));
    const op = wailsOps({ Op });
    expect(await op('Notes.Tree', 'a')).toEqual({ root: '/n', path: 'a', entries: [] });
    await op('Calls.Call', 's1', 3);
    expect(Op.mock.calls).toEqual([
      ['Notes.Tree', ['a']],
      ['Calls.Call', ['s1', 3]],
    ]);
  });

  it('sends an operation the window asks about to the bound method that asks, never to Op', async () => {
    const Op = vi.fn();
    const ApplyBatch = vi.fn(async () => ({ id: 'b1', state: 'reviewing' }));
    const op = wailsOps({ Op, ApplyBatch });
    expect(await op('Batches.Apply', 'b1', { items: [] })).toEqual({ id: 'b1', state: 'reviewing' });
    expect(ApplyBatch).toHaveBeenCalledWith('b1', { items: [] });
    await expect(op('Evolution.Approve', 'c1', { accepted: [] })).rejects.toThrow('This window has no ApproveCandidate');
    expect(Op).not.toHaveBeenCalled();
  });

  it('every method that asks is bound in the window (the generated bindings)', () => {
    const names = Object.values(OP_CONFIRMED);
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(typeof (bound as Record<string, unknown>)[name!], name).toBe('function');
    expect(typeof bound.Op).toBe('function');
  });

  it('waits for the handshake and turns Go’s string into an Error', async () => {
    const order: string[] = [];
    const t = new WailsTransport(
      {
        ...bareApp({ 'Skills.SkillList': () => Promise.reject('no skills folder') }),
        Handshake: async () => {
          order.push('Handshake');
          return '1.0';
        },
      },
      undefined,
    );
    const err = await t.op('Skills.SkillList').catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe('no skills folder');
    expect(order).toEqual(['Handshake']);
  });
});

describe('HTTP', () => {
  it('posts the arguments as a JSON array to the derived route', async () => {
    const post = vi.fn(async () => null);
    await httpOps(post)('Notes.UndoAll', 's1', ['c2', 'c1']);
    expect(post).toHaveBeenCalledWith('/api/op/Notes.UndoAll', ['s1', ['c2', 'c1']]);
    expect(opPath('Documents.State')).toBe('/api/op/Documents.State');
  });

  it('answers with the result, nothing for 204, and the sentence of an error', async () => {
    const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
      expect(init?.method).toBe('POST');
      expect((init?.headers as Record<string, string>)['Content-Type']).toBe('application/json');
      if (String(url).endsWith('.Remove')) return new Response(null, { status: 204 });
      if (String(url).endsWith('.Burn')) return new Response(JSON.stringify({ error: 'no such operation: "Notes.Burn"' }), { status: 404 });
      return new Response(JSON.stringify({ id: 'x', path: 'a.md', quire: 'q', now: 'n', limit: 1 }));
    });
    const t = new HttpTransport('http://q', { fetch: fetch as typeof globalThis.fetch });
    expect((await t.op('Notes.Versions', 'x')).path).toBe('a.md');
    expect(await t.op('Documents.Remove', '/a.md')).toBeUndefined();
    await expect((t.op as (n: string) => Promise<unknown>)('Notes.Burn')).rejects.toThrow('no such operation: "Notes.Burn"');
  });
});
