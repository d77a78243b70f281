import { describe, expect, it, vi, type Mock } from 'vitest';
import { PROTOCOL_VERSION } from '../src/lib/protocol';
import { HttpTransport } from '../src/lib/transport/http';
import { pickTransport } from '../src/lib/transport/pick';
import { ANSWER_IN_DIALOG, WailsTransport, type WailsApp, type WailsRuntime } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

/** A window whose Op answers each operation with `answers[name]`, recording every call. */
function fakeApp(over: Partial<WailsApp> = {}, answers: Record<string, (...args: never[]) => unknown> = {}): WailsApp & { Op: Mock } {
  const session = { id: 's1', title: 'T', createdAt: '', updatedAt: '', lastSeq: 0, running: false };
  const bare = bareApp(answers);
  return {
    ...bare,
    Handshake: vi.fn(async () => '1.0'),
    Doctor: vi.fn(async () => ({ ok: true, checks: [] })),
    ListSessions: vi.fn(async () => [session]),
    NewSession: vi.fn(async (title: string) => ({ ...session, title })),
    RenameSession: vi.fn(async (_id: string, title: string) => ({ ...session, title })),
    DeleteSession: vi.fn(async () => undefined),
    Events: vi.fn(async () => []),
    Send: vi.fn(async () => 'run-1'),
    SendWith: vi.fn(async () => 'run-going'),
    Cancel: vi.fn(async () => undefined),
    ReportView: vi.fn(async () => undefined),
    NotesFolder: vi.fn(async () => '/home/ann/Notes'),
    ChooseNotesFolder: vi.fn(async () => '/home/ann/Other'),
    ...over,
    Op: vi.fn(bare.Op) as WailsApp['Op'] & Mock,
  };
}

describe('pickTransport', () => {
  it.each([
    { name: 'no window.go', win: { location: { origin: 'http://127.0.0.1:7777' } }, want: HttpTransport },
    { name: 'window.go without main', win: { go: {}, location: { origin: 'http://x' } }, want: HttpTransport },
    { name: 'window.go.main without App', win: { go: { main: {} }, location: { origin: 'http://x' } }, want: HttpTransport },
    { name: 'window.go.main.App', win: { go: { main: { App: fakeApp() } }, location: { origin: 'wails://wails' } }, want: WailsTransport },
  ])('$name', ({ win, want }) => {
    expect(pickTransport(win)).toBeInstanceOf(want);
  });

  it('inside the window, calls go through the generated bindings (wailsjs) to window.go and window.runtime', async () => {
    const app = fakeApp();
    const subscribed: string[] = [];
    const told: string[] = [];
    const runtime: WailsRuntime = {
      EventsOnMultiple: (name: string) => {
        subscribed.push(name);
        return () => {};
      },
      EventsEmit: (name: string) => told.push(name),
    };
    // The generated functions read the global window at call time; the
    // window handed to pickTransport only tells it where it runs, so a call
    // that reached its App would not have gone through wailsjs.
    vi.stubGlobal('window', { go: { main: { App: app } }, runtime });
    const notVia = () => Promise.reject('called window.go by hand, not through wailsjs');
    const seen = fakeApp({ Handshake: vi.fn(notVia), NewSession: vi.fn(notVia) });
    try {
      const t = pickTransport({ go: { main: { App: seen } }, runtime, location: { origin: 'wails://wails' } });
      expect((await t.newSession('Via wailsjs')).title).toBe('Via wailsjs');
      expect(app.Handshake).toHaveBeenCalledWith(PROTOCOL_VERSION);
      expect(app.NewSession).toHaveBeenCalledWith('Via wailsjs');
      t.subscribe(vi.fn(), vi.fn());
      expect(subscribed.sort()).toEqual(['quire:events', 'quire:resync', 'quire:sessions']);
      expect(told).toEqual(['quire:listening']);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('HTTP goes to the page origin', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('[]', { status: 200 }));
    try {
      await pickTransport({ location: { origin: 'http://127.0.0.1:7777' } }).listSessions();
      expect(fetchSpy.mock.calls[0][0]).toBe('http://127.0.0.1:7777/api/sessions');
    } finally {
      fetchSpy.mockRestore();
    }
  });
});

describe('WailsTransport', () => {
  it('calls the bound methods with their arguments', async () => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    await t.doctor();
    await t.listSessions();
    expect((await t.newSession('Hello')).title).toBe('Hello');
    expect((await t.renameSession('s1', 'New')).title).toBe('New');
    await t.deleteSession('s1');
    await t.events('s1', 4);
    expect(await t.send('s1', 'hi', 'key-1')).toBe('run-1');
    await t.cancel('s1');
    const snap = { activeSession: null, sessionTitles: [], messages: [], banner: null, streaming: false };
    await t.reportView(snap);
    expect(app.NewSession).toHaveBeenCalledWith('Hello');
    expect(app.RenameSession).toHaveBeenCalledWith('s1', 'New');
    expect(app.DeleteSession).toHaveBeenCalledWith('s1');
    expect(app.Events).toHaveBeenCalledWith('s1', 4);
    expect(app.Send).toHaveBeenCalledWith('s1', 'hi', 'key-1');
    expect(app.Cancel).toHaveBeenCalledWith('s1');
    expect(app.ReportView).toHaveBeenCalledWith(snap);
  });

  it('null lists from Go become empty lists', async () => {
    const t = new WailsTransport(
      fakeApp({
        ListSessions: async () => null,
        Events: async () => null,
        Doctor: async () => ({ ok: false, checks: null as never }),
      }),
      undefined,
    );
    expect(await t.listSessions()).toEqual([]);
    expect(await t.events('s', 0)).toEqual([]);
    expect(await t.doctor()).toEqual({ ok: false, checks: [] });
  });

  it('a Go error (rejected with a string) becomes an Error with that message', async () => {
    const t = new WailsTransport(fakeApp({ Send: () => Promise.reject('This chat is still answering.') }), undefined);
    const err = await t.send('s', 'x', 'k').catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe('This chat is still answering.');
  });

  it('send with intent follow_up (the default) calls Send(id, text, key), not SendWith', async () => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    expect(await t.send('s1', 'next one', 'k1', 'follow_up')).toBe('run-1');
    expect(await t.send('s1', 'and this', 'k2')).toBe('run-1');
    expect(app.Send).toHaveBeenNthCalledWith(1, 's1', 'next one', 'k1');
    expect(app.Send).toHaveBeenNthCalledWith(2, 's1', 'and this', 'k2');
    expect(app.SendWith).not.toHaveBeenCalled();
  });

  it.each(['steer', 'inject'] as const)('send with intent %s calls SendWith(id, text, intent, key), after the handshake', async (intent) => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    expect(await t.send('s1', 'also check the dates', 'k3', intent)).toBe('run-going');
    expect(app.SendWith).toHaveBeenCalledWith('s1', 'also check the dates', intent, 'k3');
    expect(app.Send).not.toHaveBeenCalled();
    expect(vi.mocked(app.SendWith!).mock.invocationCallOrder[0]).toBeGreaterThan(vi.mocked(app.Handshake).mock.invocationCallOrder[0]);
  });

  it('a SendWith that Go refuses rejects with its sentence', async () => {
    const t = new WailsTransport(fakeApp({ SendWith: () => Promise.reject('intent "x" is not follow_up, steer or inject') }), undefined);
    await expect(t.send('s1', 'x', 'k', 'steer')).rejects.toThrow(/^intent "x" is not follow_up, steer or inject$/);
  });

  it('answers are not given in the page: answersInPage is false and answer rejects without calling Go', async () => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    expect(t.answersInPage).toBe(false);
    await expect(t.answer('s1', ['c1'], true, '')).rejects.toThrow(ANSWER_IN_DIALOG);
    for (const m of Object.values(app)) if (vi.isMockFunction(m)) expect(m).not.toHaveBeenCalled();
  });

  it('a Cancel that Go refuses rejects with its sentence', async () => {
    const t = new WailsTransport(fakeApp({ Cancel: () => Promise.reject('No such chat.') }), undefined);
    await expect(t.cancel('s')).rejects.toThrow(/^No such chat\.$/);
  });

  it('subscribes to quire:events and quire:sessions for ever, and unsubscribes', () => {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const offs: string[] = [];
    const runtime: WailsRuntime = {
      EventsOnMultiple: vi.fn((name: string, cb: (...d: unknown[]) => void, max: number) => {
        expect(max).toBe(-1);
        handlers.set(name, cb);
        return () => offs.push(name);
      }),
    };
    const onEvents = vi.fn();
    const onSessions = vi.fn();
    const off = new WailsTransport(fakeApp(), runtime).subscribe(onEvents, onSessions);
    expect([...handlers.keys()].sort()).toEqual(['quire:events', 'quire:resync', 'quire:sessions']);

    const batch = [{ session: 's', seq: 0, type: 'session.created', time: '', visibility: 'public', payload: { title: 'x' } }];
    handlers.get('quire:events')!(batch);
    handlers.get('quire:sessions')!([]);
    handlers.get('quire:sessions')!(null);
    expect(onEvents).toHaveBeenCalledWith(batch);
    expect(onSessions.mock.calls).toEqual([[[]], [[]]]);

    off();
    expect(offs.sort()).toEqual(['quire:events', 'quire:resync', 'quire:sessions']);
  });

  it('without a runtime, subscribe is a harmless no-op', () => {
    const off = new WailsTransport(fakeApp(), undefined).subscribe(vi.fn(), vi.fn());
    expect(() => off()).not.toThrow();
  });
});

describe('WailsTransport notes folder', () => {
  it('chooses in the native dialog', () => {
    expect(new WailsTransport(fakeApp(), undefined).choosesFolderInDialog).toBe(true);
  });

  it('notesFolder calls NotesFolder(); "" until chosen', async () => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    expect(await t.notesFolder()).toBe('/home/ann/Notes');
    vi.mocked(app.NotesFolder!).mockResolvedValueOnce('');
    expect(await t.notesFolder()).toBe('');
    expect(app.NotesFolder).toHaveBeenCalledWith();
  });

  it('chooseNotesFolder calls ChooseNotesFolder() and ignores a path: the dialog asks', async () => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    expect(await t.chooseNotesFolder('/typed/path')).toBe('/home/ann/Other');
    expect(app.ChooseNotesFolder).toHaveBeenCalledTimes(1);
    expect(app.ChooseNotesFolder).toHaveBeenCalledWith();
  });

  it('a cancelled dialog resolves with ""', async () => {
    const t = new WailsTransport(fakeApp({ ChooseNotesFolder: vi.fn(async () => '') }), undefined);
    expect(await t.chooseNotesFolder()).toBe('');
  });

  it("a Go error (a string) rejects with its sentence", async () => {
    const sentence = 'the notes folder /x cannot be used: permission denied';
    const t = new WailsTransport(fakeApp({ ChooseNotesFolder: vi.fn(() => Promise.reject(sentence)) }), undefined);
    const err = await t.chooseNotesFolder().catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe(sentence);
  });

  it('neither waits for the handshake, as Go does not gate them', async () => {
    const app = fakeApp({ Handshake: vi.fn(() => new Promise<string>(() => {})) }); // never answers
    const t = new WailsTransport(app, undefined);
    expect(await t.notesFolder()).toBe('/home/ann/Notes');
    expect(await t.chooseNotesFolder()).toBe('/home/ann/Other');
    expect(app.Handshake).not.toHaveBeenCalled();
  });

  it('still work when the handshake failed', async () => {
    const app = fakeApp({ Handshake: vi.fn(() => Promise.reject('incompatible protocol version: …')) });
    const t = new WailsTransport(app, undefined);
    await expect(t.listSessions()).rejects.toThrow(/incompatible/);
    expect(await t.notesFolder()).toBe('/home/ann/Notes');
  });
});

describe('WailsTransport handshake', () => {
  const INCOMPATIBLE = 'incompatible protocol version: this Quire speaks 2.0, the other side 1.0; update the older one';
  const snap = { activeSession: null, sessionTitles: [], messages: [], banner: null, streaming: false };

  it('calls Handshake(PROTOCOL_VERSION) once, before any other method, and waits for it', async () => {
    // Every gated method notes a call that comes before the handshake is
    // answered, whenever it comes: nothing waits on a timer.
    let answered = false;
    const early: string[] = [];
    const gated = <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
      vi.fn(async (...a: A): Promise<R> => {
        if (!answered) early.push(name);
        return f(...a);
      });
    const base = fakeApp();
    let shake!: (v: string) => void;
    let asked!: () => void;
    const handshakeAsked = new Promise<void>((r) => (asked = r));
    const app = fakeApp({
      Handshake: vi.fn(() => {
        asked();
        return new Promise<string>((r) => (shake = r));
      }),
      ListSessions: gated('ListSessions', base.ListSessions),
      Events: gated('Events', base.Events),
      Send: gated('Send', base.Send),
      NewSession: gated('NewSession', base.NewSession),
    });
    const t = new WailsTransport(app, undefined);
    const calls = Promise.all([t.listSessions(), t.events('s1', 0), t.send('s1', 'hi', 'k'), t.newSession('x')]);
    await handshakeAsked;
    expect(app.Handshake).toHaveBeenCalledTimes(1);
    expect(app.Handshake).toHaveBeenCalledWith(PROTOCOL_VERSION);

    answered = true;
    shake('1.0');
    await calls;
    expect(early).toEqual([]);
    for (const m of [app.ListSessions, app.Events, app.Send, app.NewSession]) expect(m).toHaveBeenCalledTimes(1);
    await t.renameSession('s1', 'y');
    await t.deleteSession('s1');
    await t.cancel('s1');
    expect(app.Handshake).toHaveBeenCalledTimes(1);
    const first = vi.mocked(app.Handshake).mock.invocationCallOrder[0];
    for (const m of [app.ListSessions, app.Events, app.Send, app.NewSession, app.RenameSession, app.DeleteSession, app.Cancel]) {
      expect(vi.mocked(m).mock.invocationCallOrder[0]).toBeGreaterThan(first);
    }
  });

  it.each([
    { answer: true, probing: true },
    { answer: false, probing: false },
    { answer: undefined, probing: true },
  ])('reportView passes on whether Go has a probe ($answer → $probing)', async ({ answer, probing }) => {
    const app = fakeApp();
    vi.mocked(app.ReportView).mockResolvedValue(answer);
    expect(await new WailsTransport(app, undefined).reportView(snap)).toBe(probing);
  });

  it('Doctor and the test probe go without a handshake', async () => {
    const app = fakeApp();
    const t = new WailsTransport(app, undefined);
    await t.doctor();
    await t.reportView(snap);
    expect(app.Doctor).toHaveBeenCalled();
    expect(app.ReportView).toHaveBeenCalledWith(snap);
    expect(app.Handshake).not.toHaveBeenCalled();
  });

  it('a failed handshake makes every call reject with its sentence, and is not repeated', async () => {
    const app = fakeApp({ Handshake: vi.fn(() => Promise.reject(INCOMPATIBLE)) });
    const t = new WailsTransport(app, undefined);
    const results = await Promise.allSettled([
      t.listSessions(),
      t.newSession('x'),
      t.renameSession('s1', 'y'),
      t.deleteSession('s1'),
      t.events('s1', 0),
      t.send('s1', 'hi', 'k'),
      t.cancel('s1'),
    ]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toBe(INCOMPATIBLE);
    }
    await expect(t.listSessions()).rejects.toThrow(INCOMPATIBLE);
    expect(app.Handshake).toHaveBeenCalledTimes(1);
    for (const m of [app.ListSessions, app.NewSession, app.RenameSession, app.DeleteSession, app.Events, app.Send, app.Cancel]) {
      expect(m).not.toHaveBeenCalled();
    }
    // The health checks still run, so the window can say what is wrong.
    expect(await t.doctor()).toEqual({ ok: true, checks: [] });
  });
});

describe('WailsTransport documents', () => {
  it('calls the documents operations through Op after the handshake', async () => {
    const app = fakeApp(
      {},
      {
        'Documents.State': () => ({ embedder: 'x', offline: true, roots: null, documents: null, progress: {} }),
        'Documents.Add': () => undefined,
        'Documents.Cancel': () => undefined,
        'Documents.Retry': () => undefined,
        'Documents.Remove': () => undefined,
        'Documents.Source': (path: string, page: number) => ({ path, name: 'a.md', format: 'markdown', page, text: 't' }),
      },
    );
    const t = new WailsTransport(app, undefined);
    expect(t.takesFileDrops).toBe(true);
    expect((await t.documents()).documents).toEqual([]);
    await t.indexPaths(['/home/ann/papers']);
    await t.cancelIndexing();
    await t.retryDocument('/a.md');
    await t.removeDocument('/b.md');
    expect((await t.documentSource('/a.md')).page).toBe(0);
    expect(app.Handshake).toHaveBeenCalledTimes(1);
    expect(app.Op.mock.calls).toEqual([
      ['Documents.State', []],
      ['Documents.Add', [['/home/ann/papers']]],
      ['Documents.Cancel', []],
      ['Documents.Retry', ['/a.md']],
      ['Documents.Remove', ['/b.md']],
      ['Documents.Source', ['/a.md', 0]],
    ]);
  });

  it('rejects with Go error text', async () => {
    const t = new WailsTransport(fakeApp({}, { 'Documents.Source': () => Promise.reject('/etc/passwd: this file is not in the document index') }), undefined);
    await expect(t.documentSource('/etc/passwd')).rejects.toThrow(/^\/etc\/passwd: this file is not in the document index$/);
  });

  it('forwards quire:indexing and quire:drop-error runtime events', () => {
    const listeners = new Map<string, (...d: unknown[]) => void>();
    const rt: WailsRuntime = {
      EventsOnMultiple: vi.fn((name: string, cb: (...d: unknown[]) => void) => {
        listeners.set(name, cb);
        return () => listeners.delete(name);
      }),
    };
    const t = new WailsTransport(fakeApp(), rt);
    const onProgress = vi.fn();
    const onDrop = vi.fn();
    const off = t.subscribeIndexing(onProgress, onDrop);
    listeners.get('quire:indexing')!({ running: true, phase: 'scanning' });
    listeners.get('quire:indexing')!(null);
    listeners.get('quire:drop-error')!('there is no such file or folder');
    expect(onProgress.mock.calls).toEqual([[{ running: true, phase: 'scanning' }]]);
    expect(onDrop).toHaveBeenCalledWith('there is no such file or folder');
    off();
    expect(listeners.size).toBe(0);
  });
});

describe('WailsTransport models', () => {
  it('calls the models operations through Op after the handshake', async () => {
    const app = fakeApp(
      {},
      {
        'Models.List': () => ({ installed: null, recommended: null, pulls: null }),
        'Models.Pull': () => undefined,
        'Models.CancelPull': () => undefined,
        'Models.Delete': () => undefined,
      },
    );
    const t = new WailsTransport(app, undefined);
    expect(await t.models()).toEqual({ installed: [], recommended: [], pulls: [] });
    await t.pullModel(' qwen3:8b ');
    await t.cancelPull('qwen3:8b');
    await t.deleteModel('qwen3:4b');
    expect(app.Handshake).toHaveBeenCalledTimes(1);
    await expect(t.pullModel('')).rejects.toThrow('Type the name of a model');
    expect(app.Op.mock.calls).toEqual([
      ['Models.List', []],
      ['Models.Pull', ['qwen3:8b']],
      ['Models.CancelPull', ['qwen3:8b']],
      ['Models.Delete', ['qwen3:4b']],
    ]);
  });

  it('forwards quire:pull', async () => {
    const listeners = new Map<string, (...d: unknown[]) => void>();
    const rt: WailsRuntime = {
      EventsOnMultiple: vi.fn((name: string, cb: (...d: unknown[]) => void) => {
        listeners.set(name, cb);
        return () => listeners.delete(name);
      }),
    };
    const t = new WailsTransport(fakeApp(), rt);
    const onProgress = vi.fn();
    const off = t.subscribePulls(onProgress);
    listeners.get('quire:pull')!({ model: 'qwen3:8b', state: 'done' });
    listeners.get('quire:pull')!(null);
    expect(onProgress.mock.calls).toEqual([[{ model: 'qwen3:8b', state: 'done' }]]);
    off();
    expect(listeners.size).toBe(0);
  });
});

describe('WailsTransport live updates', () => {
  // A stand-in for the Wails runtime: the test plays Go's emits by hand and
  // records what the page sends back.
  function fakeRuntime() {
    const on = new Map<string, (...data: unknown[]) => void>();
    const sent: unknown[][] = [];
    const runtime: WailsRuntime = {
      EventsOnMultiple: (name, cb) => {
        on.set(name, cb);
        return () => on.delete(name);
      },
      EventsEmit: (name, ...data) => sent.push([name, ...data]),
    };
    const go = (name: string, ...data: unknown[]) => on.get(name)?.(...data);
    return { runtime, on, sent, go };
  }

  it('says it listens, hands each update on and then tells Go its delivery number', () => {
    const { runtime, sent, go } = fakeRuntime();
    const onEvents = vi.fn();
    const onSessions = vi.fn();
    new WailsTransport(fakeApp(), runtime).subscribe(onEvents, onSessions);
    expect(sent).toEqual([['quire:listening']]);
    const batch = [{ session: 's1', seq: 3, type: 'user.message', time: 't', visibility: 'public', payload: {} }];
    go('quire:events', batch, 7);
    go('quire:sessions', null, 8);
    expect(onEvents).toHaveBeenCalledWith(batch);
    expect(onSessions).toHaveBeenCalledWith([]);
    expect(sent).toEqual([['quire:listening'], ['quire:taken', 7], ['quire:taken', 8]]);
    // The number is sent after the page handled the update, never before.
    expect(onEvents.mock.invocationCallOrder[0]).toBeLessThan(onSessions.mock.invocationCallOrder[0]);
  });

  it('a resync from Go (the page fell behind) asks the caller to reload; unsubscribing stops everything', () => {
    const { runtime, on, go } = fakeRuntime();
    const onResync = vi.fn();
    const off = new WailsTransport(fakeApp(), runtime).subscribe(vi.fn(), vi.fn(), onResync);
    go('quire:resync');
    expect(onResync).toHaveBeenCalledTimes(1);
    off();
    expect(on.size).toBe(0);
  });
});
