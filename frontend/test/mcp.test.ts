// @vitest-environment jsdom
// Settings' MCP section: its words (effects, choices, tokens and the
// share warning), the add form's reading, the store over a host that keeps
// servers as Quire's manager would, the section mounted in jsdom, and both
// transports' routes and bindings.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import McpSettings from '../src/components/McpSettings.svelte';
import {
  actionsOf,
  choiceWords,
  effectWords,
  emptyForm,
  formConfig,
  LARGE_SHARE,
  McpStore,
  secretNames,
  shareWarning,
  stateWords,
  stderrTail,
  tokenWords,
} from '../src/lib/mcp.svelte';
import type { MCPServerConfig, MCPState, MCPTool, MCPToolChoice } from '../src/lib/protocol';
import { HttpTransport, MCP_POLL_MS } from '../src/lib/transport/http';
import { type MCPAction, type MCPTransport, type McpImport, type McpServer } from '../src/lib/transport/mcp';
import { WailsTransport } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

function tool(over: Partial<MCPTool> = {}): MCPTool {
  return { name: 'notes__write', server: 'notes', tool: 'write', description: 'Writes a file', effects: 'write+net', readOnly: false, destructive: false, enabled: true, tokens: 60, ...over };
}
function server(over: Partial<McpServer> = {}): McpServer {
  return {
    config: { name: 'notes', command: 'node', args: ['srv.js'], enabled: true },
    state: 'running',
    sinceMs: 1,
    tools: [tool({ name: 'notes__read', tool: 'read', effects: 'read', readOnly: true, tokens: 40 }), tool()],
    tokens: 100,
    ...over,
  };
}

/** A host that keeps its servers as Quire's manager does: a choice changes the tool, a put starts a server. */
function host() {
  let servers: McpServer[] = [server()];
  let listener: ((s: McpServer) => void) | null = null;
  const find = (name: string) => {
    const s = servers.find((x) => x.config.name === name);
    if (!s) throw new Error(`no MCP server is named ${name}; open Settings again`);
    return s;
  };
  const t = {
    confirmsLoosenInDialog: false as boolean,
    mcpServers: vi.fn(async () => ({ servers: structuredClone(servers), tokens: servers.reduce((n, s) => n + s.tokens, 0) })),
    putMcpServer: vi.fn(async (c: MCPServerConfig) => {
      if (c.name === 'bad') throw new Error('the command "nope" was not found: check the path, then add it again');
      const s: McpServer = { config: c, state: 'starting', sinceMs: 2, tools: [], tokens: 0 };
      servers = [...servers.filter((x) => x.config.name !== c.name), s];
      return structuredClone(s);
    }),
    removeMcpServer: vi.fn(async (name: string) => {
      find(name);
      servers = servers.filter((x) => x.config.name !== name);
    }),
    importMcp: vi.fn(async (text: string): Promise<McpImport> => {
      JSON.parse(text);
      servers = [...servers, server({ config: { name: 'files', url: 'http://127.0.0.1:3001/mcp', enabled: true }, state: 'starting', tools: [], tokens: 0 })];
      return { added: ['files'], refused: [{ name: 'b a d', reason: 'a name is letters, digits, - and _: rename it' }] };
    }),
    controlMcpServer: vi.fn(async (name: string, action: MCPAction) => {
      const s = find(name);
      s.state = action === 'stop' ? 'stopped' : 'starting';
      return structuredClone(s);
    }),
    setMcpTool: vi.fn(async (c: MCPToolChoice) => {
      const s = find(c.server);
      const x = s.tools.find((y) => y.tool === c.tool)!;
      x.enabled = c.enabled;
      x.override = c.effects || undefined;
      x.effects = c.effects || (x.readOnly ? 'read' : 'write+net');
      x.loosened = !x.readOnly && c.effects === 'read';
      s.tokens = s.tools.filter((y) => y.enabled).reduce((n, y) => n + y.tokens, 0);
      return structuredClone(s);
    }),
    subscribeMcp: vi.fn((f: (s: McpServer) => void) => {
      listener = f;
      return () => (listener = null);
    }),
  };
  return { t: t satisfies MCPTransport, emit: (s: McpServer) => listener?.(s), servers: () => servers };
}

describe('the words', () => {
  it.each([
    [{ effects: 'read' }, 'Reads only'],
    [{ effects: 'write+net' }, 'Can change things — asks first'],
    [{ effects: '' }, 'Can change things — asks first'],
  ])('effects %o read as %s', (t, want) => expect(effectWords(t)).toBe(want));

  it.each([
    [{ readOnly: false, loosened: true, override: 'read' }, /You loosened it/],
    [{ readOnly: true, override: 'write+net' }, /You tightened it/],
    [{ readOnly: true }, /^$/],
    [{ readOnly: false, override: 'write+net' }, /^$/],
  ])('a choice %o says %s', (t, want) => expect(choiceWords(t)).toMatch(want));

  it.each([
    ['running', true, 'Running', ['restart', 'stop']],
    ['starting', true, 'Starting…', ['restart', 'stop']],
    ['failed', true, 'Failed', ['start']],
    ['stopped', true, 'Stopped', ['start']],
    ['stopped', false, 'Disabled', ['start']],
  ] as [MCPState, boolean, string, MCPAction[]][])('a %s server (enabled %s) shows %s and offers %o', (state, enabled, words, actions) => {
    expect(stateWords({ state, config: { enabled } })).toBe(words);
    expect(actionsOf({ state })).toEqual(actions);
  });

  it('counts tokens against the context and warns past the large share only', () => {
    expect(tokenWords(1240, 8192)).toBe('1,240 tokens (15% of the context)');
    expect(tokenWords(1, 0)).toBe('1 token');
    expect(tokenWords(10, 100000)).toBe('10 tokens (under 1% of the context)');
    const edge = Math.ceil(8192 * LARGE_SHARE);
    expect(shareWarning(edge - 1, 8192)).toBe('');
    expect(shareWarning(edge, 8192)).toMatch(/take 20% of the model's 8,192-token context/);
    expect(shareWarning(5000, 0)).toBe('');
  });

  it.each([
    [{ env: { TOKEN: '••••••••', A_DIR: '••••••••' } }, 'Environment: A_DIR, TOKEN (values hidden)'],
    [{ headers: { Authorization: '••••••••' } }, 'Headers: Authorization (values hidden)'],
    [{}, ''],
  ])('names the secrets of %o without a value', (c, want) => {
    expect(secretNames(c)).toBe(want);
    expect(secretNames(c)).not.toContain('••');
  });

  it('keeps the last lines of stderr', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n\n';
    const tail = stderrTail(text, 3);
    expect(tail).toBe('line 47\nline 48\nline 49');
    expect(stderrTail(undefined)).toBe('');
  });
});

describe('the add form', () => {
  it.each([
    [{ name: ' ' }, /Give the server a name/],
    [{ name: 'x', command: ' ' }, /Type the command/],
    [{ name: 'x', command: 'npx', env: 'NOEQUALS' }, /“NOEQUALS” is not KEY=VALUE/],
    [{ name: 'x', kind: 'http' as const, url: 'ftp://x' }, /Type the server’s address/],
  ])('refuses %o in words', (over, want) => {
    expect(formConfig({ ...emptyForm(), ...over })).toMatch(want);
  });

  it('reads one argument a line (spaces kept) and KEY=VALUE lines (a value may hold =)', () => {
    expect(formConfig({ ...emptyForm(), name: ' files ', command: ' npx ', args: '-y\n\n@scope/server a b\n', env: 'TOKEN=a=b\n\nDEBUG=' })).toEqual({
      name: 'files',
      command: 'npx',
      args: ['-y', '@scope/server a b'],
      env: { TOKEN: 'a=b', DEBUG: '' },
      enabled: true,
    });
    expect(formConfig({ ...emptyForm(), name: 'web', kind: 'http', url: ' http://127.0.0.1:3001/mcp ', command: 'ignored' })).toEqual({ name: 'web', url: 'http://127.0.0.1:3001/mcp', enabled: true });
  });
});

describe('the store', () => {
  it('loads, follows the stream by name, and sums the enabled declarations', async () => {
    const h = host();
    const s = new McpStore(h.t);
    const off = s.subscribe();
    await s.load();
    expect(s.tokens).toBe(100);
    h.emit(server({ state: 'failed', reason: 'it exited (status 1): see its error output', tokens: 0 }));
    h.emit(server({ config: { name: 'alpha', command: 'a', enabled: true }, tokens: 30 }));
    expect(s.servers.map((x) => [x.config.name, x.state])).toEqual([
      ['alpha', 'running'],
      ['notes', 'failed'],
    ]);
    expect(s.tokens).toBe(30);
    off();
  });

  it('a tool choice keeps the other half of it: enabling keeps an override, tightening keeps enabled', async () => {
    const h = host();
    const s = new McpStore(h.t);
    await s.load();
    await s.tighten(s.servers[0].tools[0]);
    expect(h.t.setMcpTool).toHaveBeenLastCalledWith({ server: 'notes', tool: 'read', enabled: true, effects: 'write+net' });
    await s.setEnabled(s.servers[0].tools[0], false);
    expect(h.t.setMcpTool).toHaveBeenLastCalledWith({ server: 'notes', tool: 'read', enabled: false, effects: 'write+net' });
    expect(s.servers[0].tokens).toBe(60);
    await s.declared(s.servers[0].tools[0]);
    expect(h.t.setMcpTool).toHaveBeenLastCalledWith({ server: 'notes', tool: 'read', enabled: false, effects: '' });
    expect(s.servers[0].tools[0].effects).toBe('read');
  });

  it('says a refusal in the host’s words and keeps the list', async () => {
    const h = host();
    const s = new McpStore(h.t);
    await s.load();
    await s.remove('ghost');
    expect(s.error).toBe('no MCP server is named ghost; open Settings again');
    expect(s.servers).toHaveLength(1);
    expect(s.busy).toEqual([]);
    expect(await s.add({ ...emptyForm(), name: 'bad', command: 'nope' })).toMatch(/was not found/);
    await s.paste('  ');
    expect(s.error).toMatch(/Paste an mcp.json first/);
    expect(h.t.importMcp).not.toHaveBeenCalled();
  });
});

describe('the section', () => {
  let target: HTMLElement;
  let app: ReturnType<typeof mount> | null = null;
  afterEach(() => {
    if (app) unmount(app);
    app = null;
    target?.remove();
  });
  async function show(h: ReturnType<typeof host>, numCtx = 8192) {
    target = document.createElement('div');
    document.body.appendChild(target);
    app = mount(McpSettings, { target, props: { host: h.t, numCtx } });
    await vi.waitFor(() => expect(target.querySelectorAll('[data-testid="mcp-server"]').length).toBeGreaterThan(0));
    flushSync();
  }
  const q = (sel: string) => target.querySelector(sel) as HTMLElement;
  const all = (sel: string) => [...target.querySelectorAll(sel)] as HTMLElement[];
  function type(sel: string, value: string) {
    const el = q(sel) as HTMLInputElement;
    el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }

  it('shows each tool’s effects in words, and loosens only after a confirm that says what it means', async () => {
    const h = host();
    await show(h);
    expect(all('[data-testid="mcp-tool-effects"]').map((e) => e.textContent)).toEqual(['Reads only', 'Can change things — asks first']);
    q('[data-testid="mcp-tool-loosen"]').click();
    flushSync();
    const dialog = q('[data-testid="confirm-dialog"]');
    expect(dialog.textContent).toMatch(/did not say it only reads.*Quire will not ask you first/);
    expect(h.t.setMcpTool).not.toHaveBeenCalled();
    (dialog.querySelector('button:last-of-type') as HTMLElement).click();
    await vi.waitFor(() => expect(q('[data-testid="mcp-tool-choice"]')?.textContent).toMatch(/You loosened it/));
    expect(h.t.setMcpTool).toHaveBeenCalledWith({ server: 'notes', tool: 'write', enabled: true, effects: 'read' });
  });

  it('shows a failed server’s reason and its stderr as text, open', async () => {
    const h = host();
    await show(h);
    h.emit(server({ state: 'failed', reason: 'it exited during the handshake: fix the command, then Start', stderr: '<img src=x onerror=alert(1)>\nTypeError: boom\u202e\n' }));
    flushSync();
    expect(q('[data-testid="mcp-state"]').textContent).toBe('Failed');
    expect(q('[data-testid="mcp-reason"]').textContent).toMatch(/handshake/);
    const details = q('[data-testid="mcp-stderr"]') as HTMLDetailsElement;
    expect(details.open).toBe(true);
    expect(details.querySelector('pre')!.textContent).toBe('<img src=x onerror=alert(1)>\nTypeError: boom\\u202e');
    expect(details.querySelector('img')).toBeNull();
    expect(all('[data-testid="mcp-start"]')).toHaveLength(1);
  });

  it('warns when the enabled declarations take a large share of the context', async () => {
    const h = host();
    await show(h, 400);
    expect(q('[data-testid="mcp-warning"]').textContent).toMatch(/take 25% of the model's 400-token context/);
    (all('[data-testid="mcp-tool-enabled"]')[1] as HTMLInputElement).click();
    await vi.waitFor(() => expect(q('[data-testid="mcp-warning"]')).toBeNull());
    expect(q('[data-testid="mcp-total"]').textContent).toMatch(/40 tokens \(10% of the context\)/);
  });

  it('adds a stdio server from the form and says what a paste added and refused', async () => {
    const h = host();
    await show(h);
    q('[data-testid="mcp-add-open"]').click();
    flushSync();
    type('[data-testid="mcp-add-name"]', 'everything');
    type('[data-testid="mcp-add-command"]', 'npx');
    type('[data-testid="mcp-add-args"]', '-y\n@modelcontextprotocol/server-everything');
    q('[data-testid="mcp-add-save"]').click();
    await vi.waitFor(() => expect(q('[data-testid="mcp-add-form"]')).toBeNull());
    expect(h.t.putMcpServer).toHaveBeenCalledWith({ name: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], enabled: true });
    expect(all('[data-testid="mcp-server"]').map((e) => e.dataset.name)).toEqual(['everything', 'notes']);

    q('[data-testid="mcp-paste-open"]').click();
    flushSync();
    type('[data-testid="mcp-paste-text"]', '{"mcpServers": {}}');
    q('[data-testid="mcp-paste-save"]').click();
    await vi.waitFor(() => expect(q('[data-testid="mcp-imported-added"]')?.textContent).toBe('Added: files.'));
    expect(q('[data-testid="mcp-imported-refused"]').textContent).toBe('b a d: a name is letters, digits, - and _: rename it');
    await tick();
    expect(all('[data-testid="mcp-server"]').map((e) => e.dataset.name)).toEqual(['notes', 'everything', 'files']);
  });
});

describe('the transports', () => {
  it('the browser: the derived routes, and a refusal as its sentence', async () => {
    const calls: [string, string, unknown][] = [];
    const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      calls.push([init?.method ?? 'GET', path, init?.body ? JSON.parse(String(init.body)) : undefined]);
      if (path.endsWith('.Restart')) return new Response(JSON.stringify({ error: 'no MCP server is named a/b' }), { status: 404 });
      if (path.endsWith('.Servers')) return new Response(JSON.stringify({ servers: [{ config: { name: 'n', command: 'c', args: null, enabled: true }, state: 'running', sinceMs: 1, tools: null, tokens: 0 }], tokens: 0 }));
      if (path.endsWith('.Import')) return new Response(JSON.stringify({ added: null, refused: null }));
      if (path.endsWith('.Remove')) return new Response(null, { status: 204 });
      return new Response(JSON.stringify(server()));
    });
    const h = new HttpTransport('http://127.0.0.1:1', { fetch: fetch as typeof globalThis.fetch, eventSource: () => ({ addEventListener() {}, close() {} }) });
    expect(h.confirmsLoosenInDialog).toBe(false);
    const l = await h.mcpServers();
    expect([l.servers[0].config.args, l.servers[0].tools]).toEqual([[], []]);
    await h.putMcpServer({ name: 'n', url: 'http://127.0.0.1:3001/mcp', enabled: true });
    await h.controlMcpServer('a/b', 'stop');
    await expect(h.controlMcpServer('a/b', 'restart')).rejects.toThrow('no MCP server is named a/b');
    await h.removeMcpServer('a/b');
    expect(await h.importMcp('{}')).toEqual({ added: [], refused: [] });
    await h.setMcpTool({ server: 'n', tool: 't', enabled: false });
    expect(calls).toEqual([
      ['POST', '/api/op/MCP.Servers', []],
      ['POST', '/api/op/MCP.Put', [{ name: 'n', url: 'http://127.0.0.1:3001/mcp', enabled: true }]],
      ['POST', '/api/op/MCP.Stop', ['a/b']],
      ['POST', '/api/op/MCP.Restart', ['a/b']],
      ['POST', '/api/op/MCP.Remove', ['a/b']],
      ['POST', '/api/op/MCP.Import', ['{}']],
      ['POST', '/api/op/MCP.SetTool', [{ server: 'n', tool: 't', enabled: false }]],
    ]);
  });

  it('the browser follows the servers by polling (a sixth stream would take its last connection), handing on only what changed', async () => {
    vi.useFakeTimers();
    try {
      let state = 'starting';
      let gets = 0;
      const fetch = vi.fn(async () => {
        gets++;
        return new Response(JSON.stringify({ servers: [server({ state: state as McpServer['state'] }), server({ config: { name: 'still', command: 'c', enabled: true } })], tokens: 0 }));
      });
      const streams: string[] = [];
      const h = new HttpTransport('http://127.0.0.1:1', { fetch: fetch as typeof globalThis.fetch, eventSource: (u) => (streams.push(u), { addEventListener() {}, close() {} }) });
      const got: string[] = [];
      const off = h.subscribeMcp((s) => got.push(`${s.config.name}:${s.state}`));
      await vi.advanceTimersByTimeAsync(0);
      expect(got).toEqual(['notes:starting', 'still:running']);
      await vi.advanceTimersByTimeAsync(MCP_POLL_MS);
      expect(got).toHaveLength(2);
      state = 'running';
      await vi.advanceTimersByTimeAsync(MCP_POLL_MS);
      expect(got.slice(2)).toEqual(['notes:running']);
      off();
      const asked = gets;
      await vi.advanceTimersByTimeAsync(5 * MCP_POLL_MS);
      expect(gets).toBe(asked);
      expect(streams).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the window: Op for an action, the bound method that asks for a loosening, and quire:mcp filtered', async () => {
    const control = vi.fn(() => server({ state: 'stopped' }));
    const setTool = vi.fn(async () => server({ state: 'running' }));
    let emit: ((s: unknown) => void) | null = null;
    const rt = {
      EventsOnMultiple: (name: string, cb: (...d: unknown[]) => void) => {
        if (name === 'quire:mcp') emit = cb;
        return () => (emit = null);
      },
    };
    const w = new WailsTransport({ ...bareApp({ 'MCP.Stop': control }), SetMCPTool: setTool as never }, rt);
    expect(w.confirmsLoosenInDialog).toBe(true);
    expect((await w.controlMcpServer('notes', 'stop')).state).toBe('stopped');
    expect(control).toHaveBeenCalledWith('notes');
    await w.setMcpTool({ server: 'notes', tool: 't', enabled: true, effects: 'read' });
    expect(setTool).toHaveBeenCalledWith({ server: 'notes', tool: 't', enabled: true, effects: 'read' });
    const got: string[] = [];
    const off = w.subscribeMcp((s) => got.push(s.state));
    emit!(server({ state: 'failed' }));
    emit!('not a server');
    emit!({ state: 'running' });
    expect(got).toEqual(['failed']);
    off();
    expect(emit).toBeNull();
  });
});
