import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatStore } from '../src/lib/chat.svelte';
import { PROTOCOL_VERSION, type ViewSnapshot } from '../src/lib/protocol';
import { HttpTransport, NO_ACCESS, SEND_RETRIES, type EventSourceLike } from '../src/lib/transport/http';
import { NO_FOLDER_PATH } from '../src/lib/transport/transport';

// A tiny stand-in for `quire serve`: records each request and answers from
// `routes`; `drops[route]` requests to that route are read and then dropped
// without an answer (the connection is cut), as a flaky network would.
interface Seen {
  method: string;
  url: string;
  contentType?: string;
  protocol?: string;
  key?: string;
  body: unknown;
}
type Answer = { status: number; body?: unknown; raw?: string };

let server: Server;
let base = '';
let seen: Seen[] = [];
let routes: Record<string, Answer> = {};
let drops: Record<string, number> = {};

const session = {
  id: 'a/b c',
  title: 'Hi',
  createdAt: '2026-11-30T10:00:00Z',
  updatedAt: '2026-11-30T10:00:00Z',
  lastSeq: 0,
  running: false,
};

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        protocol: req.headers['quire-protocol'] as string | undefined,
        key: req.headers['idempotency-key'] as string | undefined,
        body: data ? JSON.parse(data) : undefined,
      });
      const route = `${req.method} ${req.url}`;
      if ((drops[route] ?? 0) > 0) {
        drops[route]--;
        req.socket.destroy();
        return;
      }
      const a = routes[route] ?? { status: 404, body: { error: 'no such route' } };
      if (a.raw !== undefined) {
        res.writeHead(a.status, { 'Content-Type': 'text/plain' });
        res.end(a.raw);
      } else if (a.body === undefined) {
        res.writeHead(a.status);
        res.end();
      } else {
        res.writeHead(a.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(a.body));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  seen = [];
  routes = {};
  drops = {};
});

describe('HttpTransport requests', () => {
  it('doctor GETs /api/doctor', async () => {
    const report = { ok: false, checks: [{ name: 'ollama', ok: false, detail: 'down', remedy: 'start it' }] };
    routes['GET /api/doctor'] = { status: 200, body: report };
    expect(await new HttpTransport(base).doctor()).toEqual(report);
  });

  it('searchConversations posts the query whole to Conversations.Search; a failure is its sentence', async () => {
    const q = '"tent* -(NEAR & co';
    const hit = { session: 'a', title: 'Trip', seq: 3, role: 'user', time: '2026-11-30T10:00:00Z', snippet: null };
    routes['POST /api/op/Conversations.Search'] = { status: 200, body: { query: q, hits: [hit] } };
    const r = await new HttpTransport(base).searchConversations(q, 5);
    expect(r).toEqual({ query: q, hits: [{ ...hit, snippet: [] }] });
    expect(seen[0]).toMatchObject({ protocol: PROTOCOL_VERSION, body: [q, 5] });
    routes['POST /api/op/Conversations.Search'] = { status: 409, body: { error: 'this Quire cannot search its conversations' } };
    await expect(new HttpTransport(base).searchConversations('x')).rejects.toThrow('this Quire cannot search its conversations');
  });

  it('an export Quire refuses rejects with its sentence', async () => {
    routes['GET /api/sessions/a%2Fb%20c/export?format=md'] = { status: 404, body: { error: 'no such session: a/b c' } };
    await expect(new HttpTransport(base).exportSession('a/b c', 'md')).rejects.toThrow('no such session: a/b c');
  });

  it('doctor turns null checks into an empty list', async () => {
    routes['GET /api/doctor'] = { status: 200, body: { ok: true, checks: null } };
    expect(await new HttpTransport(base).doctor()).toEqual({ ok: true, checks: [] });
  });

  it('listSessions GETs /api/sessions; null is an empty list', async () => {
    routes['GET /api/sessions'] = { status: 200, body: [session] };
    expect(await new HttpTransport(base).listSessions()).toEqual([session]);
    routes['GET /api/sessions'] = { status: 200, body: null };
    expect(await new HttpTransport(base).listSessions()).toEqual([]);
  });

  it('a trailing slash on the base is fine', async () => {
    routes['GET /api/sessions'] = { status: 200, body: [] };
    expect(await new HttpTransport(base + '/').listSessions()).toEqual([]);
    expect(seen[0].url).toBe('/api/sessions');
  });

  it('newSession POSTs {title} as JSON', async () => {
    routes['POST /api/sessions'] = { status: 200, body: session };
    expect(await new HttpTransport(base).newSession('Hi')).toEqual(session);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/sessions', body: { title: 'Hi' } });
    expect(seen[0].contentType).toMatch(/application\/json/);
  });

  it('renameSession PATCHes the escaped id', async () => {
    routes['PATCH /api/sessions/a%2Fb%20c'] = { status: 200, body: { ...session, title: 'New' } };
    const s = await new HttpTransport(base).renameSession('a/b c', 'New');
    expect(s.title).toBe('New');
    expect(seen[0]).toMatchObject({ method: 'PATCH', body: { title: 'New' } });
  });

  it('deleteSession DELETEs and accepts 204', async () => {
    routes['DELETE /api/sessions/s1'] = { status: 204 };
    await expect(new HttpTransport(base).deleteSession('s1')).resolves.toBeUndefined();
    expect(seen[0].method).toBe('DELETE');
  });

  it('events GETs from a seq; null is an empty list', async () => {
    const e = { session: 's1', seq: 3, type: 'user.message', time: 't', visibility: 'public', payload: { text: 'x' } };
    routes['GET /api/sessions/s1/events?from=3'] = { status: 200, body: [e] };
    expect(await new HttpTransport(base).events('s1', 3)).toEqual([e]);
    routes['GET /api/sessions/s1/events?from=0'] = { status: 200, body: null };
    expect(await new HttpTransport(base).events('s1', 0)).toEqual([]);
  });

  it('send POSTs {text, intent: follow_up} with its Idempotency-Key and returns the run id from a 202', async () => {
    routes['POST /api/sessions/s1/messages'] = { status: 202, body: { runId: 'run-9' } };
    expect(await new HttpTransport(base).send('s1', 'hello\nworld', 'key-1')).toBe('run-9');
    expect(seen[0].body).toEqual({ text: 'hello\nworld', intent: 'follow_up' });
    expect(seen[0].key).toBe('key-1');
  });

  it.each(['follow_up', 'steer', 'inject'] as const)('send with intent %s puts it in the body', async (intent) => {
    routes['POST /api/sessions/s1/messages'] = { status: 202, body: { runId: 'run-going' } };
    expect(await new HttpTransport(base).send('s1', 'also this', 'key-2', intent)).toBe('run-going');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/sessions/s1/messages', key: 'key-2', protocol: PROTOCOL_VERSION });
    expect(seen[0].body).toEqual({ text: 'also this', intent });
  });

  it('a steer whose answer is lost is retried with the same key and the same intent', async () => {
    routes['POST /api/sessions/s1/messages'] = { status: 202, body: { runId: 'run-going' } };
    drops['POST /api/sessions/s1/messages'] = 1;
    const t = new HttpTransport(base, { retryDelayMs: 0 });
    expect(await t.send('s1', 'steer me', 'key-3', 'steer')).toBe('run-going');
    expect(seen.map((x) => [x.key, x.body])).toEqual([
      ['key-3', { text: 'steer me', intent: 'steer' }],
      ['key-3', { text: 'steer me', intent: 'steer' }],
    ]);
  });

  it('answer POSTs {callIds, allowed, feedback} to /answer and accepts 204', async () => {
    routes['POST /api/sessions/a%2Fb%20c/answer'] = { status: 204 };
    const t = new HttpTransport(base);
    expect(t.answersInPage).toBe(true);
    await expect(t.answer('a/b c', ['call-1', 'call-2'], false, 'not that file')).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/api/sessions/a%2Fb%20c/answer',
      contentType: 'application/json',
      protocol: PROTOCOL_VERSION,
    });
    expect(seen[0].body).toEqual({ callIds: ['call-1', 'call-2'], allowed: false, feedback: 'not that file' });
    expect(seen[0].key).toBeUndefined();
  });

  it('answer with Allow and no reason sends an empty feedback', async () => {
    routes['POST /api/sessions/s1/answer'] = { status: 204 };
    await new HttpTransport(base).answer('s1', ['c1'], true, '');
    expect(seen[0].body).toEqual({ callIds: ['c1'], allowed: true, feedback: '' });
  });

  it('answer to a closed question (409) rejects with the sentence, word for word, and is not retried', async () => {
    const sentence = 'there is no open question about those calls (answered already, or the request ended)';
    routes['POST /api/sessions/s1/answer'] = { status: 409, body: { error: sentence } };
    await expect(new HttpTransport(base, { retryDelayMs: 0 }).answer('s1', ['c1'], true, '')).rejects.toThrow(
      new Error(sentence),
    );
    expect(seen).toHaveLength(1);
  });

  it('cancel POSTs to /cancel', async () => {
    routes['POST /api/sessions/s1/cancel'] = { status: 204 };
    await new HttpTransport(base).cancel('s1');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/sessions/s1/cancel' });
  });

  it('reportView POSTs the snapshot to /api/probe', async () => {
    routes['POST /api/probe'] = { status: 204 };
    const snap: ViewSnapshot = {
      activeSession: 's1',
      sessionTitles: ['Hi'],
      messages: [{ role: 'user', text: 'hello' }],
      banner: null,
      streaming: false,
    };
    expect(await new HttpTransport(base).reportView(snap)).toBe(true);
    expect(seen[0].body).toEqual(snap);
  });

  it('reportView says when the host has no probe ({"probing":false})', async () => {
    routes['POST /api/probe'] = { status: 200, body: { probing: false } };
    const snap: ViewSnapshot = { activeSession: null, sessionTitles: [], messages: [], banner: null, streaming: false };
    expect(await new HttpTransport(base).reportView(snap)).toBe(false);
  });
});

describe('HttpTransport notes folder', () => {
  const SENTENCE = 'the notes folder /nope cannot be used: stat /nope: no such file or directory';

  it('has no folder dialog: the page asks for a path', () => {
    expect(new HttpTransport(base).choosesFolderInDialog).toBe(false);
  });

  it('notesFolder asks for the Settings screen and returns notesDir ("" until chosen)', async () => {
    routes['POST /api/op/Settings.Screen'] = { status: 200, body: { notesDir: '/home/ann/Notes' } };
    expect(await new HttpTransport(base).notesFolder()).toBe('/home/ann/Notes');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/op/Settings.Screen', protocol: PROTOCOL_VERSION });
    routes['POST /api/op/Settings.Screen'] = { status: 200, body: { notesDir: '' } };
    expect(await new HttpTransport(base).notesFolder()).toBe('');
    routes['POST /api/op/Settings.Screen'] = { status: 200, body: {} };
    expect(await new HttpTransport(base).notesFolder()).toBe('');
  });

  it('chooseNotesFolder(path) PUTs {notesDir} (trimmed) and resolves with the folder Quire kept', async () => {
    routes['PUT /api/settings'] = { status: 200, body: { notesDir: '/home/ann/Notes' } };
    expect(await new HttpTransport(base).chooseNotesFolder('  /home/ann/Notes/ ')).toBe('/home/ann/Notes');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/api/settings', protocol: PROTOCOL_VERSION, body: { notesDir: '/home/ann/Notes/' } });
    expect(seen[0].contentType).toMatch(/application\/json/);
    expect(seen[0].key).toBeUndefined();
  });

  it('noteLinks posts the path to Notes.Links; null lists are empty', async () => {
    routes['POST /api/op/Notes.Links'] = { status: 200, body: { path: 'a b/plan.md', indexed: true, backlinks: [{ from: 'x.md', target: 'plan', line: 2, wiki: true }], unresolved: null, backlinkCount: 1, unresolvedCount: 0, limit: 200 } };
    const l = await new HttpTransport(base).noteLinks('a b/plan.md');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/op/Notes.Links', body: ['a b/plan.md'] });
    expect(l.backlinks).toEqual([{ from: 'x.md', target: 'plan', line: 2, wiki: true }]);
    expect(l.unresolved).toEqual([]);
    expect(l.indexed).toBe(true);
  });

  it("a 400 rejects with Quire's sentence, word for word", async () => {
    routes['PUT /api/settings'] = { status: 400, body: { error: SENTENCE } };
    await expect(new HttpTransport(base).chooseNotesFolder('/nope')).rejects.toThrow(SENTENCE);
  });

  it.each([undefined, '', '   '])('without a path (%j) it rejects with a sentence and sends nothing', async (path) => {
    await expect(new HttpTransport(base).chooseNotesFolder(path)).rejects.toThrow(NO_FOLDER_PATH);
    expect(seen).toHaveLength(0);
  });
});

describe('HttpTransport protocol version', () => {
  it('every request carries Quire-Protocol: 1.0', async () => {
    routes['GET /api/doctor'] = { status: 200, body: { ok: true, checks: [] } };
    routes['GET /api/sessions'] = { status: 200, body: [] };
    routes['POST /api/sessions'] = { status: 200, body: session };
    routes['PATCH /api/sessions/s1'] = { status: 200, body: session };
    routes['DELETE /api/sessions/s1'] = { status: 204 };
    routes['GET /api/sessions/s1/events?from=0'] = { status: 200, body: [] };
    routes['POST /api/sessions/s1/messages'] = { status: 202, body: { runId: 'r' } };
    routes['POST /api/sessions/s1/cancel'] = { status: 204 };
    routes['POST /api/probe'] = { status: 204 };
    const t = new HttpTransport(base);
    await t.doctor();
    await t.listSessions();
    await t.newSession('Hi');
    await t.renameSession('s1', 'New');
    await t.deleteSession('s1');
    await t.events('s1', 0);
    await t.send('s1', 'x', 'k');
    await t.cancel('s1');
    await t.reportView({ activeSession: null, sessionTitles: [], messages: [], banner: null, streaming: false });
    expect(seen).toHaveLength(9);
    for (const r of seen) expect(r.protocol, `${r.method} ${r.url}`).toBe(PROTOCOL_VERSION);
    // Only a send carries an idempotency key.
    expect(seen.filter((r) => r.key !== undefined).map((r) => r.url)).toEqual(['/api/sessions/s1/messages']);
  });

  it('a 426 (incompatible protocol) rejects with the server\'s sentence', async () => {
    const sentence = 'incompatible protocol version: this Quire speaks 2.0, the other side 1.0; update the older one';
    routes['GET /api/sessions'] = { status: 426, body: { error: sentence } };
    await expect(new HttpTransport(base).listSessions()).rejects.toThrow(sentence);
  });
});

describe('HttpTransport send retries', () => {
  const MESSAGES = 'POST /api/sessions/s1/messages';

  it('a send whose connection is cut is tried again with the same Idempotency-Key', async () => {
    routes[MESSAGES] = { status: 202, body: { runId: 'run-1' } };
    drops[MESSAGES] = SEND_RETRIES; // every attempt but the last gets no answer
    expect(await new HttpTransport(base, { retryDelayMs: 0 }).send('s1', 'hello', 'key-7')).toBe('run-1');
    expect(seen).toHaveLength(SEND_RETRIES + 1);
    for (const r of seen) expect(r).toMatchObject({ url: '/api/sessions/s1/messages', key: 'key-7', body: { text: 'hello' }, protocol: '1.0' });
  });

  it('gives up after 2 retries with a readable error', async () => {
    const fetchStub = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const t = new HttpTransport('http://quire.invalid', { fetch: fetchStub as unknown as typeof fetch, retryDelayMs: 0 });
    await expect(t.send('s1', 'x', 'key-2')).rejects.toThrow('Could not reach Quire: Failed to fetch');
    expect(fetchStub).toHaveBeenCalledTimes(3);
    const keys = (fetchStub.mock.calls as unknown as [string, RequestInit][]).map(([, init]) => (init.headers as Record<string, string>)['Idempotency-Key']);
    expect(keys).toEqual(['key-2', 'key-2', 'key-2']);
  });

  it('waits a little longer before each retry', async () => {
    vi.useFakeTimers();
    try {
      const fetchStub = vi.fn(async () => {
        if (fetchStub.mock.calls.length < 3) throw new TypeError('Failed to fetch');
        return new Response(JSON.stringify({ runId: 'r' }), { status: 202 });
      });
      const t = new HttpTransport('http://quire.invalid', { fetch: fetchStub as unknown as typeof fetch, retryDelayMs: 100 });
      const sent = t.send('s1', 'x', 'k');
      await vi.advanceTimersByTimeAsync(99);
      expect(fetchStub).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(fetchStub).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(199);
      expect(fetchStub).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(await sent).toBe('r');
      expect(fetchStub).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    { status: 409, error: 'This chat is still answering.' },
    { status: 422, error: 'this idempotency key was already used for a different command: "k"' },
    { status: 500, error: 'database is locked' },
    { status: 503, error: 'Quire is shutting down.' },
  ])('an HTTP $status is an answer, not retried', async ({ status, error }) => {
    routes[MESSAGES] = { status, body: { error } };
    await expect(new HttpTransport(base, { retryDelayMs: 0 }).send('s1', 'x', 'k')).rejects.toThrow(error);
    expect(seen).toHaveLength(1);
  });

  it('other requests are not retried after a network error', async () => {
    drops['GET /api/sessions'] = 1;
    drops['POST /api/sessions'] = 1;
    routes['GET /api/sessions'] = { status: 200, body: [] };
    routes['POST /api/sessions'] = { status: 200, body: session };
    const t = new HttpTransport(base, { retryDelayMs: 0 });
    await expect(t.listSessions()).rejects.toThrow(/^Could not reach Quire/);
    await expect(t.newSession('Hi')).rejects.toThrow(/^Could not reach Quire/);
    expect(seen).toHaveLength(2);
  });
});

describe('HttpTransport errors', () => {
  it('an {"error"} body becomes the Error message, word for word', async () => {
    routes['POST /api/sessions/s1/messages'] = { status: 409, body: { error: 'This chat is still answering.' } };
    await expect(new HttpTransport(base).send('s1', 'x', 'k')).rejects.toThrow(/^This chat is still answering\.$/);
  });

  it.each([
    { name: 'a 404 with an error body', answer: { status: 404, body: { error: 'No such chat.' } }, want: 'No such chat.' },
    { name: 'a 500 with a plain body', answer: { status: 500, raw: 'boom' }, want: 'Request failed: 500 Internal Server Error' },
    { name: 'a 400 with JSON but no error field', answer: { status: 400, body: { nope: 1 } }, want: 'Request failed: 400 Bad Request' },
  ])('$name', async ({ answer, want }) => {
    routes['GET /api/sessions'] = answer;
    await expect(new HttpTransport(base).listSessions()).rejects.toThrow(want);
  });

  it('an unreachable server gives a readable error', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    await expect(new HttpTransport(`http://127.0.0.1:${port}`).listSessions()).rejects.toThrow(/^Could not reach Quire/);
  });

  it('a 200 that is not JSON is an error', async () => {
    routes['GET /api/sessions'] = { status: 200, raw: '<html>' };
    await expect(new HttpTransport(base).listSessions()).rejects.toThrow(/not JSON/);
  });

  it('uses the injected fetch', async () => {
    const fetchStub = vi.fn(async () => new Response(JSON.stringify({ runId: 'r' }), { status: 202 }));
    const t = new HttpTransport('http://quire.invalid', { fetch: fetchStub as unknown as typeof fetch });
    expect(await t.send('s', 'x', 'k')).toBe('r');
    expect(fetchStub).toHaveBeenCalledWith(
      'http://quire.invalid/api/sessions/s/messages',
      expect.objectContaining({
        method: 'POST',
        body: '{"text":"x","intent":"follow_up"}',
        headers: { 'Quire-Protocol': '1.0', 'Content-Type': 'application/json', 'Idempotency-Key': 'k' },
        credentials: 'same-origin',
      }),
    );
  });
});

describe('HttpTransport access (the secret)', () => {
  it.each([
    ['GET /api/sessions', (t: HttpTransport) => t.listSessions()],
    ['POST /api/sessions', (t: HttpTransport) => t.newSession('x')],
    ['GET /api/doctor', (t: HttpTransport) => t.doctor()],
  ])('a 401 on %s rejects with the sentence that says to open the printed link', async (route, call) => {
    routes[route] = { status: 401, body: { error: 'the server said something else' } };
    await expect(call(new HttpTransport(base))).rejects.toThrow(NO_ACCESS);
    expect(NO_ACCESS).toMatch(/open the link quire serve printed/);
  });

  it('every request that is not a GET is sent as JSON, with a body or without', async () => {
    for (const r of ['DELETE /api/sessions/s1', 'POST /api/sessions/s1/cancel', 'POST /api/op/Documents.Cancel', 'POST /api/op/Memory.ForgetMemory'])
      routes[r] = { status: 204 };
    routes['GET /api/sessions'] = { status: 200, body: [] };
    const t = new HttpTransport(base);
    await t.deleteSession('s1');
    await t.cancel('s1');
    await t.cancelIndexing();
    await t.forgetMemory('m1');
    await t.listSessions();
    expect(seen.map((s) => `${s.method} ${s.url} ${s.contentType ?? '-'}`)).toEqual([
      'DELETE /api/sessions/s1 application/json',
      'POST /api/sessions/s1/cancel application/json',
      'POST /api/op/Documents.Cancel application/json',
      'POST /api/op/Memory.ForgetMemory application/json',
      'GET /api/sessions -',
    ]);
  });

  it('sends the cookie only to its own origin', async () => {
    const fetchStub = vi.fn(async () => new Response('[]', { status: 200 }));
    await new HttpTransport('http://127.0.0.1:1', { fetch: fetchStub as unknown as typeof fetch }).listSessions();
    expect(fetchStub).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ credentials: 'same-origin' }));
  });
});

// A stand-in EventSource: the test fires named events by hand.
class FakeEventSource implements EventSourceLike {
  static last: FakeEventSource | null = null;
  /** The newest stream opened on each path (a chat opens several). */
  static byPath = new Map<string, FakeEventSource>();
  listeners = new Map<string, ((ev: MessageEvent) => void)[]>();
  closed = false;
  constructor(public url: string) {
    FakeEventSource.last = this;
    FakeEventSource.byPath.set(new URL(url).pathname, this);
  }
  addEventListener(type: string, l: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  close() {
    this.closed = true;
  }
  fire(type: string, data?: string) {
    for (const l of this.listeners.get(type) ?? []) l({ data } as MessageEvent);
  }
}

describe('HttpTransport.subscribe (SSE)', () => {
  function subscribe() {
    const t = new HttpTransport('http://127.0.0.1:9', { eventSource: (u) => new FakeEventSource(u) });
    const onEvents = vi.fn();
    const onSessions = vi.fn();
    const onResync = vi.fn();
    const off = t.subscribe(onEvents, onSessions, onResync);
    return { es: FakeEventSource.last!, onEvents, onSessions, onResync, off };
  }

  it('opens /api/stream with ?protocol=1.0 (EventSource cannot send headers)', () => {
    expect(subscribe().es.url).toBe('http://127.0.0.1:9/api/stream?protocol=1.0');
  });

  it('passes `events` batches and `sessions` lists on', () => {
    const { es, onEvents, onSessions } = subscribe();
    const batch = [{ session: 's', seq: 1, type: 'user.message', time: 't', visibility: 'public', payload: {} }];
    es.fire('events', JSON.stringify(batch));
    es.fire('sessions', JSON.stringify([session]));
    es.fire('sessions', 'null');
    expect(onEvents).toHaveBeenCalledWith(batch);
    expect(onSessions.mock.calls).toEqual([[[session]], [[]]]);
  });

  it('ignores malformed and empty data', () => {
    const { es, onEvents, onSessions } = subscribe();
    es.fire('events', 'not json');
    es.fire('events', '[]');
    es.fire('events', '{"a":1}');
    es.fire('sessions', '{oops');
    expect(onEvents).not.toHaveBeenCalled();
    expect(onSessions).not.toHaveBeenCalled();
  });

  it('asks for a resync on every reconnect, not on the first open', () => {
    const { es, onResync } = subscribe();
    es.fire('open');
    expect(onResync).not.toHaveBeenCalled();
    es.fire('error');
    es.fire('open');
    es.fire('open');
    expect(onResync).toHaveBeenCalledTimes(2);
  });

  it('unsubscribing closes the stream', () => {
    const { es, off } = subscribe();
    off();
    expect(es.closed).toBe(true);
  });

  it('a "lagging" close is replaced by a new stream at once, whose open asks for a resync', () => {
    const { es: first, onEvents, onResync, off } = subscribe();
    first.fire('open');
    first.fire('lagging', '{"error":"fell behind"}');
    expect(first.closed).toBe(true);
    const second = FakeEventSource.last!;
    expect(second).not.toBe(first);
    expect(second.url).toBe(first.url);
    expect(onResync).not.toHaveBeenCalled(); // not before the new stream is open
    second.fire('open');
    expect(onResync).toHaveBeenCalledTimes(1);
    const batch = [{ session: 's', seq: 9, type: 'user.message', time: 't', visibility: 'public', payload: {} }];
    second.fire('events', JSON.stringify(batch));
    expect(onEvents).toHaveBeenCalledWith(batch);
    off();
    expect(second.closed).toBe(true);
  });
});

describe('resume after a lagging stream', () => {
  it('the chat reloads its session from the seq after the last one it folded', async () => {
    const ev = (seq: number, text: string) => ({
      session: 's1', seq, type: 'user.message', time: '2026-11-30T10:00:00Z', visibility: 'public', payload: { text },
    });
    const s1 = { ...session, id: 's1' };
    routes = {
      'GET /api/doctor': { status: 200, body: { ok: true, checks: [] } },
      'POST /api/op/Settings.Screen': { status: 200, body: { notesDir: '' } },
      'GET /api/sessions': { status: 200, body: [s1] },
      'GET /api/sessions/s1/events?from=0': { status: 200, body: [ev(0, 'hi'), ev(1, 'there')] },
      'GET /api/sessions/s1/events?from=3': { status: 200, body: [ev(3, 'missed while lagging')] },
    };
    const t = new HttpTransport(base, { eventSource: (u) => new FakeEventSource(u) });
    const chat = new ChatStore(t);
    await chat.start();
    const first = FakeEventSource.byPath.get('/api/stream')!;
    first.fire('open');
    first.fire('events', JSON.stringify([ev(2, 'live')]));
    await vi.waitFor(() => expect(chat.conv?.lastSeq).toBe(2));
    // Quire cut the stream: seq 3 was appended while this page was behind.
    first.fire('lagging', '{"error":"fell behind"}');
    FakeEventSource.byPath.get('/api/stream')!.fire('open');
    await vi.waitFor(() => expect(chat.conv?.lastSeq).toBe(3));
    expect(seen.map((r) => `${r.method} ${r.url}`).filter((u) => u.includes('/events'))).toEqual([
      'GET /api/sessions/s1/events?from=0',
      'GET /api/sessions/s1/events?from=3',
    ]);
  });
});

describe('HttpTransport documents', () => {
  const state = { embedder: 'offline', offline: true, roots: null, documents: null, progress: { running: false, phase: 'idle' } };

  it('lists, adds, cancels, retries, removes and reads sources through the Documents operations', async () => {
    routes = {
      'POST /api/op/Documents.State': { status: 200, body: state },
      'POST /api/op/Documents.Add': { status: 204 },
      'POST /api/op/Documents.Cancel': { status: 204 },
      'POST /api/op/Documents.Retry': { status: 204 },
      'POST /api/op/Documents.Remove': { status: 204 },
      'POST /api/op/Documents.Source': { status: 200, body: { path: '/home/ann/a b.md', name: 'a b.md', format: 'markdown', text: 'x' } },
    };
    const t = new HttpTransport(base);
    expect(t.takesFileDrops).toBe(false);
    const st = await t.documents();
    expect(st.documents).toEqual([]); // Go's null list is an empty list
    expect(st.roots).toEqual([]);
    await t.indexPaths([' /home/ann/papers ', '']);
    await t.cancelIndexing();
    await t.retryDocument('/home/ann/a.md');
    await t.removeDocument('/home/ann/b.md');
    expect((await t.documentSource('/home/ann/a b.md', 2)).text).toBe('x');
    expect(seen.map((s) => [s.method, s.url, s.body, s.protocol])).toEqual([
      ['POST', '/api/op/Documents.State', [], PROTOCOL_VERSION],
      ['POST', '/api/op/Documents.Add', [['/home/ann/papers']], PROTOCOL_VERSION],
      ['POST', '/api/op/Documents.Cancel', [], PROTOCOL_VERSION],
      ['POST', '/api/op/Documents.Retry', ['/home/ann/a.md'], PROTOCOL_VERSION],
      ['POST', '/api/op/Documents.Remove', ['/home/ann/b.md'], PROTOCOL_VERSION],
      ['POST', '/api/op/Documents.Source', ['/home/ann/a b.md', 2], PROTOCOL_VERSION],
    ]);
  });

  it('rejects with the host sentence, and an empty add without asking', async () => {
    routes = {
      'POST /api/op/Documents.Source': { status: 404, body: { error: 'this file is not in the document index' } },
    };
    const t = new HttpTransport(base);
    await expect(t.documentSource('/etc/passwd')).rejects.toThrow('this file is not in the document index');
    await expect(t.indexPaths(['  '])).rejects.toThrow('Type the full path');
    expect(seen).toHaveLength(1);
  });

  it('follows indexing progress on its own stream', () => {
    const t = new HttpTransport('http://127.0.0.1:9', { eventSource: (u) => new FakeEventSource(u) });
    const onProgress = vi.fn();
    const off = t.subscribeIndexing(onProgress);
    const es = FakeEventSource.last!;
    expect(es.url).toBe('http://127.0.0.1:9/api/documents/stream?protocol=1.0');
    es.fire('indexing', '{"running":true,"phase":"indexing","total":4,"done":1}');
    es.fire('indexing', 'not json');
    expect(onProgress.mock.calls).toEqual([[{ running: true, phase: 'indexing', total: 4, done: 1 }]]);
    off();
    expect(es.closed).toBe(true);
  });
});

describe('HttpTransport models', () => {
  it('lists, pulls, cancels and deletes through the Models operations', async () => {
    routes = {
      'POST /api/op/Models.List': { status: 200, body: { installed: [{ name: 'qwen3:4b', capabilities: null }], recommended: null, pulls: null } },
      'POST /api/op/Models.Pull': { status: 204 },
      'POST /api/op/Models.CancelPull': { status: 204 },
      'POST /api/op/Models.Delete': { status: 204 },
    };
    const t = new HttpTransport(base);
    const st = await t.models();
    expect(st.installed?.[0].capabilities).toEqual([]); // Go's null lists are empty lists
    expect(st.recommended).toEqual([]);
    expect(st.pulls).toEqual([]);
    await t.pullModel(' qwen3:8b ');
    await t.cancelPull('qwen3:8b');
    await t.deleteModel('qwen3:4b');
    expect(seen.map((s) => [s.method, s.url, s.body, s.protocol])).toEqual([
      ['POST', '/api/op/Models.List', [], PROTOCOL_VERSION],
      ['POST', '/api/op/Models.Pull', ['qwen3:8b'], PROTOCOL_VERSION],
      ['POST', '/api/op/Models.CancelPull', ['qwen3:8b'], PROTOCOL_VERSION],
      ['POST', '/api/op/Models.Delete', ['qwen3:4b'], PROTOCOL_VERSION],
    ]);
  });

  it('rejects with the host sentence, and an empty name without asking', async () => {
    routes = { 'POST /api/op/Models.Delete': { status: 404, body: { error: 'Ollama does not have the model "gone"' } } };
    const t = new HttpTransport(base);
    await expect(t.deleteModel('gone')).rejects.toThrow('Ollama does not have the model "gone"');
    await expect(t.pullModel('  ')).rejects.toThrow('Type the name of a model');
    expect(seen).toHaveLength(1);
  });

  it('follows pulls on their own stream', () => {
    const t = new HttpTransport('http://127.0.0.1:9', { eventSource: (u) => new FakeEventSource(u) });
    const onProgress = vi.fn();
    const off = t.subscribePulls(onProgress);
    const es = FakeEventSource.last!;
    expect(es.url).toBe('http://127.0.0.1:9/api/models/pull/stream?protocol=1.0');
    es.fire('pull', '{"model":"qwen3:8b","state":"running","completed":10,"total":100}');
    es.fire('pull', 'not json');
    expect(onProgress.mock.calls).toEqual([[{ model: 'qwen3:8b', state: 'running', completed: 10, total: 100 }]]);
    off();
    expect(es.closed).toBe(true);
  });
});

describe('HttpTransport questions', () => {
  const q = (id: string, session = 's') => ({
    id,
    session,
    runId: 'r1',
    calls: [{ id: `c-${id}`, name: 'forget', arguments: { id: 'mem_7' } }],
    descriptions: [`Forget this fact: "the user\u200b likes oat milk" (mem_7)`],
  });

  it('follows the open questions on their own stream and passes each on once, description and all', () => {
    const t = new HttpTransport('http://127.0.0.1:9', { eventSource: (u) => new FakeEventSource(u) });
    const got: unknown[] = [];
    const off = t.subscribeQuestions((x) => got.push(x));
    const es = FakeEventSource.last!;
    expect(es.url).toBe('http://127.0.0.1:9/api/questions/stream?protocol=1.0');
    es.fire('questions', '[]');
    es.fire('questions', JSON.stringify([q('q1')])); // asked before the page loaded, or live
    es.fire('questions', JSON.stringify([q('q1'), q('q2', 'other')])); // q1 again: the whole list each time
    es.fire('questions', 'not json');
    es.fire('questions', '{"id":"q9"}'); // not a list
    es.fire('questions', JSON.stringify([{ not: 'a question' }, null]));
    es.fire('questions', JSON.stringify([q('q2', 'other')])); // q1 closed; a reconnect sends what is open
    expect(got).toEqual([q('q1'), q('q2', 'other')]);
    off();
    expect(es.closed).toBe(true);
    es.fire('questions', JSON.stringify([q('q3')]));
    expect(got).toHaveLength(2);
  });
});
