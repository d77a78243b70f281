// @vitest-environment jsdom
// Issue 30: a window left open after a long conversation does no more work
// than after one reply. The conversation is mounted in jsdom over a real
// ChatStore with 1 and with 50 finished turns (each a reply and a tool
// card); what keeps costing while nothing happens — timers, animation
// frames, observed elements, elements with a running CSS animation — is
// counted and must not grow with the number of turns (held on main before
// issue 30 too: the page itself does nothing at rest). What did cost was
// WebKit's overlay scrollbar, which the page's stylesheet replaces.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Conversation from '../src/components/Conversation.svelte';
import { ChatStore } from '../src/lib/chat.svelte';
import type { QEvent, Session } from '../src/lib/protocol';
import type { Transport } from '../src/lib/transport/transport';
import { event } from './events';

const S = 'long';

function session(): Session {
  return { id: S, title: S, createdAt: '2026-11-30T10:00:00Z', updatedAt: '2026-11-30T10:00:00Z', lastSeq: 0, running: false };
}

/** `n` finished turns: a message, a step that reads a note, then the reply. */
function turns(n: number): QEvent[] {
  const log: QEvent[] = [event(S, 0, 'session.created', { title: S })];
  let seq = 1;
  for (let t = 1; t <= n; t++) {
    const run = `r${t}`;
    const call = { id: `c${t}`, name: 'read_note', arguments: '{"path":"a.md"}' };
    log.push(
      event(S, seq++, 'user.message', { text: `turn ${t}` }),
      event(S, seq++, 'run.started', { model: 'm' }, run),
      event(S, seq++, 'assistant.delta', { content: 'Reading' }, run),
      event(S, seq++, 'assistant.message', { step: 1, content: '', toolCalls: [call] }, run),
      event(S, seq++, 'tool.started', { callId: call.id, name: call.name }, run),
      event(S, seq++, 'tool.result', { callId: call.id, name: call.name, content: 'a note', status: 'success' }, run),
      event(S, seq++, 'assistant.delta', { content: `You said: turn ${t}` }, run),
      event(S, seq++, 'assistant.message', { step: 2, content: `You said: turn ${t}` }, run),
      event(S, seq++, 'run.finished', { reason: 'completed' }, run),
    );
  }
  return log;
}

/** A host holding one conversation of `n` turns, with no live events. */
function host(n: number): Transport {
  const log = turns(n);
  return {
    answersInPage: true,
    choosesFolderInDialog: false,
    takesFileDrops: false,
    doctor: vi.fn(async () => ({ ok: true, checks: [] })),
    notesFolder: vi.fn(async () => '/notes'),
    listSessions: vi.fn(async () => [session()]),
    events: vi.fn(async (_id: string, from: number) => log.filter((e) => e.seq >= from)),
    subscribe: () => () => {},
    subscribeQuestions: () => () => {},
  } as unknown as Transport;
}

/** What keeps running in the page, counted through its globals. */
function meter() {
  const frames = new Set<number>();
  let nextFrame = 1;
  const observed = new Set<Element>();
  const raf = (cb: FrameRequestCallback) => {
    const id = nextFrame++;
    frames.add(id);
    setTimeout(() => {
      if (frames.delete(id)) cb(0);
    }, 16);
    return id;
  };
  vi.stubGlobal('requestAnimationFrame', raf);
  vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id));
  class Observer {
    private mine = new Set<Element>();
    constructor(_cb: unknown) {}
    observe(el: Element) {
      this.mine.add(el);
      observed.add(el);
    }
    unobserve(el: Element) {
      this.mine.delete(el);
      observed.delete(el);
    }
    disconnect() {
      for (const el of this.mine) observed.delete(el);
      this.mine.clear();
    }
    takeRecords() {
      return [];
    }
  }
  vi.stubGlobal('ResizeObserver', Observer);
  vi.stubGlobal('IntersectionObserver', Observer);
  return {
    frames: () => frames.size,
    observed: () => [...observed].filter((el) => el.isConnected).length,
  };
}

/**
 * Elements whose style runs an endless animation: jsdom computes no
 * animations, so the component's CSS rules for them are matched by hand —
 * a busy chip (ToolCallCard's `.chip.busy`) is the one there is.
 */
function animating(root: Element): number {
  return root.querySelectorAll('.chip.busy').length;
}

const mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function settle() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  flushSync();
}

/** Mounts the conversation of `n` turns and counts what keeps running once it is at rest. */
async function atRest(n: number) {
  vi.useFakeTimers();
  const m = meter();
  const chat = new ChatStore(host(n));
  await chat.start();
  await settle();
  const target = document.createElement('div');
  document.body.appendChild(target);
  mounted.push(mount(Conversation, { target, props: { chat } }));
  await settle();
  // Whatever a render scheduled for once has run; what is left keeps running.
  for (let i = 0; i < 5; i++) {
    await vi.advanceTimersByTimeAsync(2000);
    await settle();
  }
  const replies = [...target.querySelectorAll('[data-role="assistant"]')].filter((e) => e.textContent?.includes('You said'));
  const counts = { timers: vi.getTimerCount(), frames: m.frames(), observed: m.observed(), animating: animating(target) };
  for (const x of mounted.splice(0)) unmount(x);
  document.body.innerHTML = '';
  chat.stop?.();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  return { counts, replies: replies.length };
}

describe('the conversation at rest', () => {
  it('keeps as much running after 100 turns as after 1', async () => {
    const one = await atRest(1);
    const fifty = await atRest(50);
    const hundred = await atRest(100);
    expect(one.replies).toBe(1);
    expect(hundred.replies).toBeGreaterThan(1); // drawn (windowed: the ones near the screen)
    const { observed: _o1, ...still1 } = one.counts;
    const { observed: _o100, ...still100 } = hundred.counts;
    expect(still100).toEqual(still1);
    expect(still1).toEqual({ timers: 0, frames: 0, animating: 0 });
    // Only the drawn items are measured, and how many are drawn does not grow.
    expect(hundred.counts.observed).toBe(fifty.counts.observed);
  });
});

describe("the page's scrollbars", () => {
  // WebKitGTK's own scrollbars overlay the page: each scroll shows one and
  // 2 s later it fades out, a repaint a frame in the web process and the
  // window's (no compositing) — after each reply once the conversation is
  // long enough to scroll (BenchmarkDesktopIdleAfterTurns: +0.9 % of a core
  // for quire, +1.1 % for WebKit over the 20 s after reply 50). A scrollbar
  // the page styles is drawn by the page, always shown, and never fades.
  it('are styled by the page, so WebKit draws no fading overlay scrollbar', () => {
    const style = document.createElement('style');
    style.textContent = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../src/app.css'), 'utf8');
    document.head.appendChild(style);
    const rules = Array.from(style.sheet!.cssRules).filter((r): r is CSSStyleRule => r instanceof CSSStyleRule);
    const bar = rules.find((r) => r.selectorText.split(',').some((s) => s.trim() === '::-webkit-scrollbar'));
    expect(bar, 'a ::-webkit-scrollbar rule in app.css').toBeDefined();
    expect(parseFloat(bar!.style.width)).toBeGreaterThan(0);
    const thumb = rules.find((r) => r.selectorText.split(',').some((s) => s.trim() === '::-webkit-scrollbar-thumb'));
    expect(thumb?.style.background || thumb?.style.backgroundColor, 'a visible thumb').toBeTruthy();
    style.remove();
  });
});
