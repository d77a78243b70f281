// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ViewSnapshot } from '../src/lib/protocol';
import { buildSnapshot, createReporter, plainText, readBanner, readContext, readFirstRun, readInspector, readMessages, readModels, readPoints, readSettings, readStanding } from '../src/lib/snapshot';

function dom(html: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = html;
  return root;
}

const page = `
  <section data-testid="banner"><h2>Quire needs attention</h2>
    <ul><li><strong>ollama</strong>: not running
      <div>start it with <code>ollama serve</code></div></li></ul>
  </section>
  <article data-testid="message" data-role="user"><div data-part="body">  hello
there </div></article>
  <article data-testid="message" data-role="assistant">
    <details><summary>Thinking</summary>hidden thought</details>
    <div data-part="body"><p>You said: <strong>hello</strong></p>
<ul><li>one</li></ul></div>
    <div class="foot">12 prompt · 7 output tokens</div>
  </article>
  <article data-testid="message" data-role="error"><span>!</span><div data-part="body">Ollama is not running.</div></article>
  <article data-testid="message" data-role="notice"><div data-part="body">Stopped.</div></article>
  <article data-testid="message" data-role="bogus"><div data-part="body">x</div></article>
`;

describe('readMessages', () => {
  it('reads role and the trimmed textContent of each body, in order', () => {
    expect(readMessages(dom(page))).toEqual([
      { role: 'user', text: 'hello\nthere' },
      { role: 'assistant', text: 'You said: hello\none' },
      { role: 'error', text: 'Ollama is not running.' },
      { role: 'notice', text: 'Stopped.' },
    ]);
  });

  it('falls back to the whole element without a body part', () => {
    expect(readMessages(dom('<div data-testid="message" data-role="user"> hi </div>'))).toEqual([
      { role: 'user', text: 'hi' },
    ]);
  });
});

describe('readBanner', () => {
  it('is the banner text with whitespace collapsed', () => {
    expect(readBanner(dom(page))).toBe('Quire needs attention ollama: not running start it with ollama serve');
  });
  it('is null without a banner', () => {
    expect(readBanner(dom('<p>nothing</p>'))).toBeNull();
  });
});

describe('buildSnapshot', () => {
  it('combines state and screen', () => {
    const snap = buildSnapshot({ activeSession: 's1', sessionTitles: ['A', 'B'], streaming: true }, dom(page));
    expect(snap.activeSession).toBe('s1');
    expect(snap.sessionTitles).toEqual(['A', 'B']);
    expect(snap.streaming).toBe(true);
    expect(snap.messages).toHaveLength(4);
    expect(snap.banner).toMatch(/ollama serve/);
  });
  it('an empty screen', () => {
    expect(buildSnapshot({ activeSession: null, sessionTitles: [], streaming: false }, dom(''))).toEqual({
      activeSession: null,
      sessionTitles: [],
      messages: [],
      banner: null,
      streaming: false,
    });
  });
  it('plainText collapses whitespace', () => {
    expect(plainText('  a \n\t b ')).toBe('a b');
    expect(plainText(null)).toBe('');
  });
});

describe('createReporter', () => {
  afterEach(() => vi.useRealTimers());

  const snap = (text: string): ViewSnapshot => ({
    activeSession: 's',
    sessionTitles: [],
    messages: [{ role: 'user', text }],
    banner: null,
    streaming: false,
  });

  it('debounces: many changes within 100 ms give one report', () => {
    vi.useFakeTimers();
    let text = 'a';
    const send = vi.fn(async () => {});
    const r = createReporter(() => snap(text), send, 100);
    r.schedule();
    vi.advanceTimersByTime(50);
    text = 'b';
    r.schedule();
    vi.advanceTimersByTime(99);
    expect(send).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledWith(snap('b'));
  });

  it('does not report an unchanged snapshot twice', () => {
    vi.useFakeTimers();
    const send = vi.fn(async () => {});
    const r = createReporter(() => snap('same'), send, 100);
    r.schedule();
    vi.advanceTimersByTime(100);
    r.schedule();
    vi.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('swallows errors from the probe, sync or async', async () => {
    vi.useFakeTimers();
    let n = 0;
    const rejecting = createReporter(() => snap(String(n++)), () => Promise.reject(new Error('no probe')), 10);
    const throwing = createReporter(() => snap(String(n++)), () => {
      throw new Error('no probe');
    }, 10);
    const failingTake = createReporter(() => {
      throw new Error('no dom');
    }, vi.fn(), 10);
    rejecting.schedule();
    throwing.schedule();
    failingTake.schedule();
    expect(() => vi.advanceTimersByTime(10)).not.toThrow();
    await Promise.resolve();
  });

  it.each([
    { name: 'no probe is set (false): stops for good', answer: false, reports: 1 },
    { name: 'a probe is set (true): goes on', answer: true, reports: 2 },
    { name: 'an older host answers nothing: goes on', answer: undefined, reports: 2 },
  ])('after the host answers that $name', async ({ answer, reports }) => {
    vi.useFakeTimers();
    let text = 'a';
    const take = vi.fn(() => snap(text));
    const send = vi.fn(async () => answer);
    const r = createReporter(take, send, 100);
    r.schedule();
    vi.advanceTimersByTime(100);
    await vi.waitFor(() => expect(r.stopped).toBe(answer === false));
    text = 'b';
    r.schedule();
    vi.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledTimes(reports);
    // Stopped, it does not even build the snapshot (a walk of the screen).
    expect(take).toHaveBeenCalledTimes(reports);
  });

  it('cancel drops a pending report', () => {
    vi.useFakeTimers();
    const send = vi.fn(async () => {});
    const r = createReporter(() => snap('x'), send, 100);
    r.schedule();
    r.cancel();
    vi.advanceTimersByTime(500);
    expect(send).not.toHaveBeenCalled();
  });
});

describe('createReporter default timers', () => {
  it('calls setTimeout unbound (a browser throws "Illegal invocation" otherwise)', () => {
    const real = globalThis.setTimeout;
    const strict = function (this: unknown, f: () => void, ms?: number) {
      if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
      return real(f, ms);
    } as unknown as typeof setTimeout;
    globalThis.setTimeout = strict;
    try {
      const r = createReporter(() => ({ activeSession: null, sessionTitles: [], messages: [], banner: null, streaming: false }), async () => {});
      expect(() => r.schedule()).not.toThrow();
      r.cancel();
    } finally {
      globalThis.setTimeout = real;
    }
  });
});

describe('the first screen and the context meter', () => {
  it('reads the state, the download and its button', () => {
    const root = dom(`<section data-testid="first-run" data-state="download">
      <div data-testid="download-progress" aria-valuenow="48"></div>
      <p data-testid="download-status">Downloading qwen3:4b: 1.2 GB
        of 2.5 GB (48%)</p></section><span data-testid="context-label">5,120 of 8,192 tokens</span>`);
    expect(readFirstRun(root)).toEqual({ state: 'download', percent: 48, status: 'Downloading qwen3:4b: 1.2 GB of 2.5 GB (48%)' });
    expect(readContext(root)).toBe('5,120 of 8,192 tokens');
    const button = dom('<section data-testid="first-run" data-state="download"><button data-testid="download-model">Download</button></section>');
    expect(readFirstRun(button)).toEqual({ state: 'download' });
    expect(readPoints(button)).toEqual({ 'download-model': { x: 0, y: 0 } });
  });
  it('is absent when not shown', () => {
    const snap = buildSnapshot({ activeSession: null, sessionTitles: [], streaming: false }, dom('<p>chat</p>'));
    expect(snap.firstRun).toBeUndefined();
    expect(snap.context).toBeUndefined();
  });
});

describe('the models and Settings screens', () => {
  it('reads the installed names, each pull row, whether Settings saved and the model typed', () => {
    const root = dom(`<section data-testid="models-panel"><li data-testid="model-row" data-name="qwen3:4b"></li>
      <li data-testid="pull-row" data-name="llama3.2:3b" data-state="running"><div data-testid="pull-bar" aria-valuenow="40"></div></li>
      <li data-testid="pull-row" data-name="x" data-state="failed"></li></section>
      <div data-testid="settings-panel"><input data-testid="settings-model" value="llama3.2:3b"><span data-testid="settings-saved">Saved.</span></div>`);
    expect(readModels(root)).toEqual({ installed: ['qwen3:4b'], pulls: [{ name: 'llama3.2:3b', state: 'running', percent: 40 }, { name: 'x', state: 'failed', percent: null }] });
    expect(readSettings(root)).toEqual({ saved: true, model: 'llama3.2:3b' });
    expect(readModels(dom('<p></p>'))).toBeUndefined();
    expect(readSettings(dom('<div data-testid="settings-panel"></div>'))).toEqual({ saved: false, model: '' });
  });
});

describe('the inspector', () => {
  it('reads its calls, the origins it shows and the copy status, only while open', () => {
    const root = dom(`<div data-testid="inspector"><li data-testid="inspector-call"></li><li data-testid="inspector-call">
      <span data-testid="inspector-origin">the user's message,
        from event #4</span><span data-testid="inspector-origin">tool result of read_note, from event #7</span>
      <span data-testid="inspector-copied">Copied 3.1 KB</span></li></div>`);
    expect(readInspector(root)).toEqual({ calls: 2, origins: ["the user's message, from event #4", 'tool result of read_note, from event #7'], copied: 'Copied 3.1 KB' });
    expect(readInspector(dom('<p></p>'))).toBeUndefined();
  });
});

describe('the Standing tasks panel', () => {
  it('reads the dot on its button and each row, only while either is shown', () => {
    const root = dom(`<button data-testid="standing-open">Standing tasks<span data-testid="standing-waiting"></span></button>
      <ul data-testid="standing-list"><li data-testid="standing-t1" data-paused="false" data-waiting="true"><p><strong>File the inbox</strong> — daily</p>
        <p data-testid="standing-last">2 proposals wait
          for your review.</p></li><li data-testid="standing-t2" data-paused="true" data-waiting="false"><p><strong>Tidy</strong></p></li></ul>`);
    expect(readStanding(root)).toEqual({
      badge: true,
      tasks: [
        { name: 'File the inbox', paused: false, waiting: true, last: '2 proposals wait for your review.' },
        { name: 'Tidy', paused: true, waiting: false, last: '' },
      ],
    });
    expect(readStanding(dom('<button data-testid="standing-open">Standing tasks</button>'))).toBeUndefined();
  });
});
