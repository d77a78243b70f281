// A small in-memory stand-in for `quire serve` (docs/PROTOCOL.md, HTTP + SSE),
// used by the e2e runner when QUIRE_E2E_URL is not set. It serves
// frontend/dist and answers every /api route; a reply is "You said: <text>",
// streamed as run.started, several assistant.delta, assistant.message and
// run.finished.
//
// Like Go, it insists on the handshake (426 without a compatible
// Quire-Protocol header, or ?protocol= on the stream; GET /api/handshake) and
// honours Idempotency-Key (a repeat is answered with the first result and has
// no second effect; the same key for another command is 422), and it takes
// POST /api/commands envelopes.
//
// Test-only controls (not part of the protocol):
//   POST /__mock/reset {doctorOk?: boolean}   forget everything
//   GET  /__mock/probe                         the last view snapshot posted to /api/probe
// Magic messages: "/fail ..." ends the run with an error; "/slow ..." streams
// slowly so a test can press Stop.
//
// Run alone: node e2e/mock-server.mjs [port]  (prints the URL)
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VERSION = '1.0';
export const FAIL_SENTENCE = 'Ollama is not running at http://127.0.0.1:11434: start it with `ollama serve`.';
export const DOCTOR_REMEDY = 'start it with `ollama serve`';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

function chunk(text, size) {
  const chars = Array.from(text);
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length ? out : [text];
}

export async function startMock({ distDir, port = 0, deltaMs = 70 } = {}) {
  const dist = resolve(distDir ?? fileURLToPath(new URL('../dist', import.meta.url)));
  let state;
  const reset = (opts = {}) => {
    for (const r of state?.runs?.values() ?? []) clearTimeout(r.timer);
    state = { sessions: new Map(), logs: new Map(), runs: new Map(), keys: new Map(), probe: null, doctorOk: opts.doctorOk ?? true, n: 0 };
  };
  reset();
  const clients = new Set();

  const now = () => new Date().toISOString();
  const list = () =>
    [...state.sessions.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.n - a.n)).map(({ n, ...s }) => s);
  const broadcast = (event, data) => {
    const msg = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of clients) res.write(msg);
  };
  const append = (id, type, payload, runId) => {
    const s = state.sessions.get(id);
    const log = state.logs.get(id);
    if (!s || !log) return null;
    const e = { session: id, seq: log.length, type, time: now(), visibility: 'public', payload };
    if (runId) e.runId = runId;
    log.push(e);
    s.lastSeq = e.seq;
    s.updatedAt = e.time;
    broadcast('events', [e]);
    return e;
  };

  function startRun(id, text) {
    const s = state.sessions.get(id);
    const runId = 'run-' + randomUUID().slice(0, 8);
    s.running = true;
    append(id, 'run.started', { model: 'mock:latest' }, runId);
    broadcast('sessions', list());
    const run = { runId, timer: null };
    state.runs.set(id, run);
    const finish = (payload) => {
      state.runs.delete(id);
      s.running = false;
      append(id, 'run.finished', payload, runId);
      broadcast('sessions', list());
    };
    if (text.startsWith('/fail')) {
      run.timer = setTimeout(() => finish({ reason: 'error', error: FAIL_SENTENCE }), deltaMs);
      return runId;
    }
    const slow = text.startsWith('/slow');
    const reply = slow ? 'Counting slowly: ' + Array.from({ length: 40 }, (_, i) => i + 1).join(', ') + '.' : `You said: ${text}`;
    const pieces = chunk(reply, slow ? 4 : Math.max(1, Math.ceil(reply.length / 6)));
    run.finish = finish;
    let i = 0;
    const step = () => {
      if (i < pieces.length) {
        append(id, 'assistant.delta', { content: pieces[i++] }, runId);
        run.timer = setTimeout(step, slow ? 250 : deltaMs);
        return;
      }
      append(
        id,
        'assistant.message',
        {
          content: reply,
          doneReason: 'stop',
          model: 'mock:latest',
          usage: { promptTokens: 24 + text.length, outputTokens: pieces.length, durationNs: 1_234_000_000 },
        },
        runId,
      );
      finish({ reason: 'completed' });
    };
    run.timer = setTimeout(step, deltaMs);
    return runId;
  }

  const readBody = (req) =>
    new Promise((ok) => {
      let d = '';
      req.on('data', (c) => (d += c));
      req.on('end', () => {
        try {
          ok(d ? JSON.parse(d) : {});
        } catch {
          ok(undefined);
        }
      });
    });
  const json = (res, status, body) => {
    if (body === undefined) {
      res.writeHead(status);
      return res.end();
    }
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res, status, error) => json(res, status, { error });

  // The handshake, as Go's protocol.Compatible: the major versions must match.
  // Every /api/ request but GET /api/handshake carries the client's version in
  // the Quire-Protocol header, or (the stream) in ?protocol=; else 426.
  function incompatible(v) {
    const major = (x) => (/^[+-]?\d+$/.test(x.split('.')[0]) ? Number(x.split('.')[0]) : NaN);
    const peer = major(v);
    if (Number.isNaN(peer)) return `incompatible protocol version: ${JSON.stringify(v)} is not a version like ${JSON.stringify(VERSION)}`;
    if (peer !== major(VERSION)) return `incompatible protocol version: this Quire speaks ${VERSION}, the other side ${v}; update the older one`;
    return null;
  }

  class Refusal extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }
  const refuse = (status, message) => {
    throw new Refusal(status, message);
  };

  // Commands, executed as the kernel does (kernel/runtime/commands.go): the
  // REST routes and POST /api/commands all end up here.
  const PAYLOADS = {
    'session.create': { title: 'string', parent: 'string', parentSeq: 'number' },
    'session.rename': { session: 'string', title: 'string' },
    'session.delete': { session: 'string' },
    'message.send': { session: 'string', text: 'string' },
    'run.cancel': { session: 'string' },
  };
  function decode(type, payload) {
    const shape = PAYLOADS[type];
    if (!shape) refuse(400, `unknown command type ${JSON.stringify(type)}`);
    const bad = (why) => refuse(400, `the command's payload is not what its type expects (${type}): ${why}`);
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) bad('not an object');
    for (const [k, v] of Object.entries(payload)) {
      if (!(k in shape)) bad(`unknown field ${JSON.stringify(k)}`);
      if (typeof v !== shape[k]) bad(`${k} is not a ${shape[k]}`);
    }
    return payload;
  }
  // A command's meaning: its type and its payload with keys sorted.
  const canonical = (v) =>
    Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : v && typeof v === 'object'
        ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
        : JSON.stringify(v);

  const current = (id) => {
    const s = state.sessions.get(id);
    if (!s) refuse(404, 'That chat does not exist any more.');
    const { n, ...out } = s;
    return out;
  };

  /**
   * Runs a command and returns its result. With an idempotency key, a repeat
   * of the same command (type and payload) returns the first result with no
   * second effect; the same key with another command is 422. A key is kept
   * only with an effect: a refused command does not use it up.
   */
  function execute(cmd) {
    const why = incompatible(String(cmd?.protocolVersion ?? ''));
    if (why) refuse(426, why);
    const p = decode(cmd.type, cmd.payload);
    const key = typeof cmd.idempotencyKey === 'string' ? cmd.idempotencyKey : '';
    const fp = `${cmd.type}\0${canonical(cmd.payload)}`;
    const once = (effect) => {
      if (!key) return effect();
      const seen = state.keys.get(key);
      if (seen && seen.fp !== fp) refuse(422, `this idempotency key was already used for a different command: ${JSON.stringify(key)}`);
      if (seen) return seen.result;
      const result = effect();
      state.keys.set(key, { fp, result });
      return result;
    };
    switch (cmd.type) {
      case 'session.create':
        return once(() => {
          const t = now();
          const s = { id: 's' + ++state.n + '-' + randomUUID().slice(0, 6), title: (p.title ?? '').trim() || 'New chat', createdAt: t, updatedAt: t, lastSeq: 0, running: false, n: state.n };
          state.sessions.set(s.id, s);
          state.logs.set(s.id, []);
          append(s.id, 'session.created', { title: s.title });
          broadcast('sessions', list());
          return current(s.id);
        });
      case 'session.rename':
        once(() => {
          const s = state.sessions.get(p.session);
          if (!s) refuse(404, 'That chat does not exist any more.');
          const title = (p.title ?? '').trim();
          if (!title) refuse(400, 'A chat needs a title.');
          s.title = title;
          append(p.session, 'session.renamed', { title });
          broadcast('sessions', list());
          return {};
        });
        return current(p.session); // a repeat answers with the session as it is now, like Go
      case 'session.delete':
        return once(() => {
          if (!state.sessions.has(p.session)) refuse(404, 'That chat does not exist any more.');
          const run = state.runs.get(p.session);
          if (run) clearTimeout(run.timer);
          state.runs.delete(p.session);
          state.sessions.delete(p.session);
          state.logs.delete(p.session);
          broadcast('sessions', list());
          return {};
        });
      case 'message.send': {
        const text = p.text ?? '';
        if (!text.trim()) refuse(400, 'There is nothing to send.');
        if (state.runs.has(p.session)) {
          // A retry of the send that started this run is not an error.
          const seen = key ? state.keys.get(key) : undefined;
          if (seen && seen.fp === fp) return seen.result;
          refuse(409, 'This chat is still answering.');
        }
        return once(() => {
          if (!state.sessions.has(p.session)) refuse(404, 'That chat does not exist any more.');
          append(p.session, 'user.message', { text });
          return { runId: startRun(p.session, text) };
        });
      }
      case 'run.cancel': {
        // Like Go: no key, and nothing to stop is not an error.
        const run = state.runs.get(p.session);
        if (run) {
          clearTimeout(run.timer);
          run.finish?.({ reason: 'cancelled' });
        }
        return {};
      }
    }
  }

  /** A REST route's command: this protocol version, the request's Idempotency-Key. */
  const command = (req, type, payload) => execute({ type, payload, idempotencyKey: req.headers['idempotency-key'] ?? '', protocolVersion: VERSION });

  async function api(req, res, url) {
    const m = req.method;
    const p = url.pathname;
    if (m === 'GET' && p === '/api/handshake') {
      const why = incompatible(url.searchParams.get('version') ?? '');
      return why ? fail(res, 426, why) : json(res, 200, { version: VERSION });
    }
    // Go's requireHandshake: the header, or else the query parameter.
    const why = incompatible(req.headers['quire-protocol'] || url.searchParams.get('protocol') || '');
    if (why) return fail(res, 426, why);
    try {
      return await route(req, res, url, m, p);
    } catch (e) {
      if (e instanceof Refusal) return fail(res, e.status, e.message);
      throw e;
    }
  }

  async function route(req, res, url, m, p) {
    if (m === 'GET' && p === '/api/doctor') {
      return json(res, 200, {
        ok: state.doctorOk,
        checks: [
          { name: 'database', ok: true, detail: 'quire.db is writable' },
          state.doctorOk
            ? { name: 'ollama', ok: true, detail: 'Ollama 0.17.4 at http://127.0.0.1:11434' }
            : { name: 'ollama', ok: false, detail: 'Ollama is not running at http://127.0.0.1:11434', remedy: DOCTOR_REMEDY },
        ],
      });
    }
    if (m === 'GET' && p === '/api/sessions') return json(res, 200, list());
    if (m === 'POST' && p === '/api/sessions') {
      const b = await readBody(req);
      if (!b || typeof b.title !== 'string') return fail(res, 400, 'A chat needs a title.');
      return json(res, 200, command(req, 'session.create', { title: b.title }));
    }
    if (m === 'POST' && p === '/api/commands') {
      const cmd = await readBody(req);
      if (!cmd || typeof cmd !== 'object') return fail(res, 400, 'the request body is not the JSON expected');
      return json(res, 200, execute(cmd));
    }
    if (m === 'GET' && p === '/api/stream') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      res.write('retry: 1000\n: connected\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    if (m === 'POST' && p === '/api/probe') {
      state.probe = await readBody(req);
      return json(res, 204);
    }
    const sm = p.match(/^\/api\/sessions\/([^/]+)(\/events|\/messages|\/cancel)?$/);
    if (sm) {
      const id = decodeURIComponent(sm[1]);
      const sub = sm[2] ?? '';
      if (m === 'PATCH' && sub === '') {
        const b = await readBody(req);
        if (!b) return fail(res, 400, 'the request body is not the JSON expected');
        return json(res, 200, command(req, 'session.rename', { session: id, title: typeof b.title === 'string' ? b.title : '' }));
      }
      if (m === 'DELETE' && sub === '') {
        command(req, 'session.delete', { session: id });
        return json(res, 204);
      }
      if (m === 'GET' && sub === '/events') {
        if (!state.sessions.has(id)) return fail(res, 404, 'That chat does not exist any more.');
        const from = Number(url.searchParams.get('from') ?? 0) || 0;
        return json(res, 200, state.logs.get(id).filter((e) => e.seq >= from));
      }
      if (m === 'POST' && sub === '/messages') {
        const b = await readBody(req);
        if (!b) return fail(res, 400, 'the request body is not the JSON expected');
        return json(res, 202, command(req, 'message.send', { session: id, text: typeof b.text === 'string' ? b.text : '' }));
      }
      if (m === 'POST' && sub === '/cancel') {
        command(req, 'run.cancel', { session: id });
        return json(res, 204);
      }
    }
    return fail(res, 404, 'No such API route.');
  }

  function serveStatic(req, res, url) {
    let rel = decodeURIComponent(url.pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    let file = normalize(join(dist, rel));
    if (!file.startsWith(dist) || !existsSync(file) || !statSync(file).isFile()) file = join(dist, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      return res.end('frontend/dist is not built: run npm run build');
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    createReadStream(file).pipe(res);
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (url.pathname === '/__mock/reset' && req.method === 'POST') {
        const b = (await readBody(req)) ?? {};
        reset(b);
        broadcast('sessions', list());
        return json(res, 204);
      }
      if (url.pathname === '/__mock/probe') return json(res, 200, state.probe);
      if (url.pathname.startsWith('/api/')) return await api(req, res, url);
      return serveStatic(req, res, url);
    } catch (e) {
      fail(res, 500, String(e?.message ?? e));
    }
  });
  const keepAlive = setInterval(() => {
    for (const res of clients) res.write(': ping\n\n');
  }, 15000);
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    close: () =>
      new Promise((ok) => {
        clearInterval(keepAlive);
        reset();
        for (const res of clients) res.end();
        clients.clear();
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const m = await startMock({ port: Number(process.argv[2] ?? 0) });
  console.log(m.url);
}
