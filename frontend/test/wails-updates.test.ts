// The window's page pulls its updates (WailsTransport.subscribe): woken by a
// runtime event that carries nothing, it fetches the deliveries past the last
// it handled, one pull at a time, and hands every event and list on once and
// in order — the golden conversation delivered this way folds as loaded.
import { describe, expect, it } from 'vitest';
import { fold, foldAll } from '../src/lib/conversation';
import { RuntimeEvent, type Delivery, type QEvent, type Session } from '../src/lib/protocol';
import { WailsTransport, type WailsApp, type WailsRuntime } from '../src/lib/transport/wails';
import golden from './golden/conversation.json';

const log = golden as unknown as QEvent[];

/** A window: it holds deliveries, wakes the page, and answers its pulls when the test lets it. */
function fakeWindow(opts: { answerFromStart?: boolean } = {}) {
  const handlers = new Map<string, ((...d: unknown[]) => void)[]>();
  const told: [string, unknown[]][] = [];
  const held: Delivery[] = [];
  const pulls: { after: number; answer: () => void }[] = [];
  let open = 0; // pulls not answered yet
  let most = 0; // the most open at once
  const runtime: WailsRuntime = {
    EventsOnMultiple: (name, cb) => {
      handlers.set(name, [...(handlers.get(name) ?? []), cb]);
      return () => handlers.set(name, (handlers.get(name) ?? []).filter((h) => h !== cb));
    },
    EventsEmit: (name, ...data) => void told.push([name, data]),
  };
  const pull = (after: number) =>
    new Promise<Delivery[]>((resolve) => {
      open++;
      most = Math.max(most, open);
      pulls.push({
        after,
        answer: () => {
          open--;
          resolve(held.filter((d) => d.n > (opts.answerFromStart ? 0 : after)));
        },
      });
    });
  let n = 0;
  return {
    transport: new WailsTransport({} as WailsApp, runtime, pull),
    told,
    pulls,
    most: () => most,
    send(d: Omit<Delivery, 'n'>) {
      held.push({ ...d, n: ++n });
      for (const h of handlers.get(RuntimeEvent.Wake) ?? []) h();
    },
    /** Answers the pulls made so far, oldest first, and lets the page handle them. */
    async answerAll() {
      for (let p = pulls.find((q) => q.answer); p; p = pulls.find((q) => q.answer)) {
        const answer = p.answer;
        p.answer = undefined as unknown as () => void;
        answer();
        await new Promise((r) => setTimeout(r, 0)); // the page's await resumes
      }
    },
  };
}

function page(w: ReturnType<typeof fakeWindow>) {
  const got: (QEvent[] | Session[])[] = [];
  const order: string[] = [];
  const off = w.transport.subscribe(
    (evs) => (got.push(evs), order.push('events')),
    (list) => (got.push(list), order.push('sessions')),
  );
  return { got, order, off };
}

const session = (title: string): Session => ({ id: 's1', title }) as Session;

describe('the window page pulling its updates', () => {
  it('says it listens, then pulls once per wake and tells what it took', async () => {
    const w = fakeWindow();
    const p = page(w);
    expect(w.told).toEqual([[RuntimeEvent.Listening, []]]);
    w.send({ kind: 'events', events: log.slice(0, 2) });
    await w.answerAll();
    w.send({ kind: 'sessions', sessions: [session('a')] });
    await w.answerAll();
    expect(w.pulls.map((q) => q.after)).toEqual([0, 1]);
    expect(p.order).toEqual(['events', 'sessions']);
    expect(p.got[0]).toEqual(log.slice(0, 2));
    expect(w.told.slice(1)).toEqual([
      [RuntimeEvent.Taken, [1]],
      [RuntimeEvent.Taken, [2]],
    ]);
  });

  it('turns the wakes of one pull into one more pull, never two at once, and hands on each delivery once in order', async () => {
    const w = fakeWindow();
    const p = page(w);
    w.send({ kind: 'events', events: [log[0]] }); // the first pull starts
    for (const e of log.slice(1, 6)) w.send({ kind: 'events', events: [e] }); // woken five times meanwhile
    w.send({ kind: 'sessions', sessions: [session('b')] });
    await w.answerAll();
    expect(w.most()).toBe(1);
    expect(w.pulls.map((q) => q.after)).toEqual([0, 7]); // the second finds nothing new
    expect(p.got.flat()).toEqual([...log.slice(0, 6), session('b')]);
    expect(w.told.at(-1)).toEqual([RuntimeEvent.Taken, [7]]);
  });

  it('skips a delivery it already handled', async () => {
    // A window that answers from before the cursor must not make the page
    // fold the same events twice.
    const w = fakeWindow({ answerFromStart: true });
    const p = page(w);
    w.send({ kind: 'events', events: [log[0]] });
    await w.answerAll();
    w.send({ kind: 'events', events: [log[1]] });
    await w.answerAll();
    expect(p.got.flat()).toEqual([log[0], log[1]]);
  });

  it('hands on nothing once unsubscribed', async () => {
    const w = fakeWindow();
    const p = page(w);
    w.send({ kind: 'events', events: [log[0]] });
    p.off();
    await w.answerAll();
    w.send({ kind: 'events', events: [log[1]] });
    await w.answerAll();
    expect(p.got).toEqual([]);
  });

  it('folds the golden conversation, pulled a delivery per event in bursts, the same as loaded', async () => {
    const w = fakeWindow();
    let conv = foldAll(log[0].session, []);
    w.transport.subscribe(
      (evs) => (conv = fold(conv, evs)),
      () => {},
    );
    for (let i = 0; i < log.length; i++) {
      w.send({ kind: 'events', events: [log[i]] });
      if (i % 3 === 2) await w.answerAll();
    }
    await w.answerAll();
    expect(conv).toEqual(foldAll(log[0].session, log));
  });
});
