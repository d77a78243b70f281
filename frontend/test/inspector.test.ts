// @vitest-environment jsdom
// The inspector ("what the model saw"): its pure logic (which calls a
// reply shows, origins in words, the size bar, the diff's summary) and the
// component mounted over a host that answers as Go does (host.Calls).
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Inspector from '../src/components/Inspector.svelte';
import { callsOfReply, changeLabel, diffSummary, originLabel, tokenBar } from '../src/lib/inspector';
import type { Call, CallList, CallOutcome, CallSummary } from '../src/lib/protocol';
import type { CallsTransport } from '../src/lib/transport/calls';
import { HttpTransport } from '../src/lib/transport/http';

function summary(n: number, step: number, outcome: CallOutcome, attempt = 0, runId = 'r1'): CallSummary {
  return { n, runId, step, attempt, seq: n * 3, at: '2026-12-01T10:00:00Z', outcome, replySeq: outcome === 'replied' ? n * 3 + 2 : -1, promptTokens: 0 };
}

describe('callsOfReply', () => {
  const list = [summary(1, 1, 'replied', 0, 'r0'), summary(2, 1, 'replied'), summary(3, 2, 'retried'), summary(4, 2, 'replied', 1), summary(5, 3, 'open')];
  it.each([
    { name: 'the answered attempt of the reply step', step: 2, open: 4 },
    { name: 'the step itself when it is the first', step: 1, open: 2 },
    { name: 'a step still going', step: 3, open: 5 },
    { name: 'the last call without a step', step: undefined, open: 5 },
    { name: 'the last call for a step the run never had', step: 9, open: 5 },
  ])('opens $name', ({ step, open }) => {
    const got = callsOfReply(list, 'r1', step);
    expect(got.calls.map((c) => c.n)).toEqual([2, 3, 4, 5]);
    expect(got.calls[got.open].n).toBe(open);
  });
  it("with no run named, takes every call of the session (a batch worker's) and opens the last", () => {
    const got = callsOfReply(list, '');
    expect(got.calls.map((c) => c.n)).toEqual([1, 2, 3, 4, 5]);
    expect(got.open).toBe(4);
  });
  it('has nothing to open for a run with no calls', () => {
    expect(callsOfReply(list, 'nope', 1)).toEqual({ calls: [], open: -1 });
  });
});

describe('originLabel', () => {
  it.each([
    [{ event: 'user.message', seq: 12 }, undefined, "the user's message, from event #12"],
    [{ event: 'assistant.message', seq: 14 }, undefined, "the assistant's reply, from event #14"],
    [{ event: 'tool.result', seq: 15 }, { toolName: 'read_note' }, 'tool result of read_note, from event #15'],
    [{ event: 'tool.refused', seq: 16 }, { toolName: 'write_note' }, 'refused call of write_note, from event #16'],
    [{ event: 'history.replace', seq: 20, from: 3, to: 9, strategy: 'summarise' }, undefined, 'compaction summary of events #3–#9, summarise (event #20)'],
    [{ event: 'context.text', seq: 2, zone: 'memory', parts: ['memory', 'notes'] }, undefined, 'system text, zone memory: memory, notes (event #2)'],
    [{ event: 'user.message', seq: 4, session: 'parent' }, undefined, "the user's message, from event #4 of the conversation this one branched from"],
  ])('%o is "%s"', (origin, m, want) => {
    expect(originLabel(origin, m)).toBe(want);
  });
});

describe('tokenBar', () => {
  it('shows each part against the window and says it is an estimate', () => {
    const bar = tokenBar({ total: 2048, system: 512, history: 1024, tools: 512, window: 8192, counted: 2100, estimate: true });
    expect(bar.parts.map((p) => p.pct)).toEqual([6.25, 12.5, 6.25]);
    expect(bar.used).toBe(25);
    expect(bar.over).toBe(false);
    expect(bar.label).toBe('about 2,048 of 8,192 tokens (Quire’s estimate) · the model counted 2,100');
  });
  it('says when the request is over the window', () => {
    const bar = tokenBar({ total: 9000, system: 0, history: 9000, tools: 0, window: 8192, counted: 0, estimate: true });
    expect(bar.over).toBe(true);
    expect(bar.used).toBe(100);
  });
  it('has no share without a window', () => {
    const bar = tokenBar({ total: 10, system: 0, history: 10, tools: 0, window: 0, counted: 0, estimate: false });
    expect(bar.label).toBe('10 tokens (window unknown)');
    expect(bar.used).toBe(0);
  });
});

describe('diffSummary', () => {
  const base = { previous: 3, added: 0, changed: 0, removed: [], systemChanged: false, toolsAdded: [], toolsRemoved: [], optionsChanged: [] };
  it.each([
    [{}, 'Compared with call 3: the same request.'],
    [{ added: 2 }, 'Compared with call 3: 2 messages added.'],
    [
      {
        added: 1,
        systemChanged: true,
        removed: [
          { role: 'user', origin: { event: 'user.message', seq: 3 }, preview: 'hi', replacedBy: 0 },
          { role: 'tool', origin: { event: 'tool.result', seq: 5 }, preview: 'x', replacedBy: -1 },
        ],
      },
      'Compared with call 3: 1 message added, 1 message replaced by a summary, 1 message removed, system text changed.',
    ],
    [{ toolsAdded: ['write_note'], optionsChanged: ['num_ctx'] }, 'Compared with call 3: tools added: write_note, options changed: num_ctx.'],
  ])('%o', (d, want) => {
    expect(diffSummary({ diff: { ...base, ...d } })).toBe(want);
  });
  it('is empty for the first call, whose messages carry no badge', () => {
    expect(diffSummary({})).toBe('');
    expect(changeLabel({}, { change: 'added' })).toBe('');
    expect(changeLabel({ diff: base }, { change: 'added' })).toBe('new');
  });
});

/** A call as Go sends it: a system zone, the user's message, a tool result cut at the bound. */
function detail(n: number): Call {
  return {
    summary: summary(n, 1, 'replied'),
    builtAt: n * 3,
    model: 'qwen3:4b',
    options: { numCtx: 8192 },
    messages: [
      { role: 'system', content: 'You are Quire.', origin: { event: 'context.text', seq: 2, zone: 'system' }, tokens: 8, bytes: 14, change: 'same' },
      { role: 'user', content: 'what is in my plan?', origin: { event: 'user.message', seq: 4 }, tokens: 9, bytes: 19, change: 'added' },
      { role: 'tool', content: 'x'.repeat(100), toolName: 'read_note', origin: { event: 'tool.result', seq: 7 }, tokens: 30, bytes: 300_000, cut: true, change: 'added' },
    ],
    shown: 0,
    messageCount: 3,
    tools: [{ name: 'read_note', description: 'Read a note.', tokens: 40 }],
    tokens: { total: 87, system: 8, history: 39, tools: 40, window: 8192, counted: 90, estimate: true },
    reply: { seq: n * 3 + 2, at: '2026-12-01T10:00:01Z', content: 'You need milk.', doneReason: 'stop', promptTokens: 90, outputTokens: 4, durationNs: 5e8, totalNs: 7e8 },
    diff: { previous: n - 1, added: 2, changed: 0, removed: [], systemChanged: false, toolsAdded: [], toolsRemoved: [], optionsChanged: [] },
    truncated: true,
    requestBytes: 300_123,
  };
}

const REQUEST = '{"messages":[{"content":"You are Quire.","role":"system"}],"model":"qwen3:4b"}\n';

function fakeHost(): CallsTransport & { calls: ReturnType<typeof vi.fn>; modelCall: ReturnType<typeof vi.fn>; callRequest: ReturnType<typeof vi.fn> } {
  const list: CallList = { calls: [summary(1, 1, 'replied', 0, 'r0'), summary(2, 1, 'replied'), summary(3, 2, 'replied')], total: 3 };
  return {
    calls: vi.fn(async () => list),
    modelCall: vi.fn(async (_s: string, n: number) => detail(n)),
    callRequest: vi.fn(async () => REQUEST),
  };
}

async function settle() {
  for (let i = 0; i < 5; i++) {
    await tick();
    await Promise.resolve();
  }
  flushSync();
}

describe('Inspector', () => {
  let app: ReturnType<typeof mount> | null = null;
  afterEach(() => {
    if (app) unmount(app);
    app = null;
    document.body.innerHTML = '';
  });

  it("shows the run's calls, opens the reply's step with its origins, copies the exact request and closes on Esc", async () => {
    const host = fakeHost();
    const onclose = vi.fn();
    const written: string[] = [];
    Object.defineProperty(window.navigator, 'clipboard', { value: { writeText: async (t: string) => void written.push(t) }, configurable: true });
    app = mount(Inspector, { target: document.body, props: { host, session: 's1', runId: 'r1', step: 2, onclose } });
    await settle();
    expect(host.calls).toHaveBeenCalledWith('s1', 'r1');
    const calls = [...document.querySelectorAll('[data-testid="inspector-call"]')];
    expect(calls.map((c) => c.getAttribute('data-n'))).toEqual(['2', '3']);
    // The reply's step (2, call 3) is the one open, and only its detail was read.
    expect(host.modelCall).toHaveBeenCalledTimes(1);
    expect(host.modelCall).toHaveBeenCalledWith('s1', 3);
    const origins = [...document.querySelectorAll('[data-testid="inspector-origin"]')].map((e) => e.textContent);
    expect(origins).toEqual(['system text, zone system (event #2)', "the user's message, from event #4", 'tool result of read_note, from event #7']);
    expect(document.querySelector('[data-testid="inspector-truncated"]')?.textContent).toContain('The copy holds all of it.');
    expect(document.querySelector('[data-testid="inspector-tokens"]')?.textContent).toBe('about 87 of 8,192 tokens (Quire’s estimate) · the model counted 90');
    expect(document.querySelector('[data-testid="inspector-diff"]')?.textContent).toBe('Compared with call 2: 2 messages added.');
    expect(document.querySelector('[data-testid="inspector-reply"]')?.textContent).toContain('You need milk.');
    // The dialog is named for screen readers, and its close button has focus.
    const dialog = document.querySelector('[role="dialog"]');
    expect(dialog?.getAttribute('aria-labelledby')).toBe('inspector-title');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('inspector-close');

    (document.querySelector('[data-testid="inspector-copy"]') as HTMLButtonElement).click();
    await settle();
    expect(host.callRequest).toHaveBeenCalledWith('s1', 3);
    expect(written).toEqual([REQUEST]);
    expect(document.querySelector('[data-testid="inspector-copied"]')?.textContent).toBe(`Copied ${REQUEST.length} bytes`);

    // Another step opens on demand.
    const head = calls[0].querySelector('button.head') as HTMLButtonElement;
    expect(head.getAttribute('aria-expanded')).toBe('false');
    head.click();
    await settle();
    expect(head.getAttribute('aria-expanded')).toBe('true');
    expect(host.modelCall).toHaveBeenLastCalledWith('s1', 2);

    // Focus that leaves the modal comes back to it.
    const outside = document.createElement('button');
    document.body.appendChild(outside);
    outside.focus();
    expect(document.activeElement?.getAttribute('data-testid')).toBe('inspector-close');

    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    const later = vi.fn();
    window.addEventListener('keydown', later);
    window.dispatchEvent(esc);
    window.removeEventListener('keydown', later);
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(later).not.toHaveBeenCalled(); // Esc closes the inspector and stops nothing else
  });

  it("says so in words when the host cannot read the calls", async () => {
    const host = { calls: vi.fn(async () => Promise.reject(new Error('the conversation has no such step'))), modelCall: vi.fn(), callRequest: vi.fn() };
    app = mount(Inspector, { target: document.body, props: { host, session: 's1', runId: 'r1', step: 1, onclose: () => {} } });
    await settle();
    expect(document.querySelector('[data-testid="inspector-error"]')?.textContent).toBe('the conversation has no such step');
  });
});

describe('HttpTransport calls', () => {
  it('hands the request over as the server sent it, and says why it could not', async () => {
    const seen: string[] = [];
    const body = '{"model":"qwen3:4b",  "messages":[]}\n'; // spacing kept: never re-encoded
    const fetchFn = (async (url: string, init?: RequestInit) => {
      const args = JSON.parse(String(init?.body ?? '[]'));
      seen.push(`${url} ${JSON.stringify(args)}`);
      if (url.endsWith('.Request') && args[1] === 9) return new Response('{"error":"the conversation has no such step: step 9 of 3"}', { status: 404 });
      if (url.endsWith('.Request')) return new Response(JSON.stringify(body), { status: 200 });
      if (url.endsWith('.Calls')) return new Response('{"calls":null,"total":0}', { status: 200 });
      return new Response('{}', { status: 200 });
    }) as typeof fetch;
    const t = new HttpTransport('http://127.0.0.1:1', { fetch: fetchFn });
    expect(await t.callRequest('s 1', 2)).toBe(body);
    await expect(t.callRequest('s 1', 9)).rejects.toThrow('the conversation has no such step: step 9 of 3');
    expect(await t.calls('s 1', 'r/1')).toEqual({ calls: [], total: 0 });
    expect(seen).toEqual([
      'http://127.0.0.1:1/api/op/Calls.Request ["s 1",2]',
      'http://127.0.0.1:1/api/op/Calls.Request ["s 1",9]',
      'http://127.0.0.1:1/api/op/Calls.Calls ["s 1","r/1"]',
    ]);
  });
});
