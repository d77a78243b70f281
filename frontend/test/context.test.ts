// How full the context is (contextUse), folded from events as Go writes
// them: the last reply's prompt tokens against its run's window.
import { describe, expect, it } from 'vitest';
import { COMPACT_AT, contextUse, foldAll, WARN_AT } from '../src/lib/conversation';
import type { CompactionRecord, QEvent } from '../src/lib/protocol';
import golden from './golden/conversation.json';
import { event } from './events';

const S = 's1';
const caps = (numCtx: number) => ({ model: 'qwen3:4b', numCtx, profile: 'ask', limits: { maxSteps: 8, maxToolCalls: 16, tokenBudget: 0, maxInputTokens: 0, loopRepeats: 3, permissionWaitNs: 0 } });
const input = (seq: number, run: string, numCtx: number) => event(S, seq, 'input.received', { inputId: `i${seq}`, intent: 'follow_up', text: 'hi', runId: run, caps: caps(numCtx) });
const reply = (seq: number, run: string, promptTokens: number) =>
  event(S, seq, 'assistant.message', { content: 'ok', doneReason: 'stop', model: 'qwen3:4b', usage: { promptTokens, outputTokens: 3, durationNs: 1 } }, run);
const compaction = (seq: number, run: string, after: number, window: number): QEvent => {
  const record: CompactionRecord = {
    strategy: 'summarise',
    trigger: 'size',
    figures: { tokens: 6400, window, fill: 6400 / window, topSourceShare: 0, duplicateRatio: 0, lowValueShare: 0, index: 0 },
    beforeTokens: 6400,
    afterTokens: after,
  };
  return event(S, seq, 'history.replace', { from: 1, to: 2, summary: 'earlier: hi', compaction: record }, run);
};
const use = (events: QEvent[]) => contextUse(foldAll(S, events));

describe('the context meter', () => {
  it('reads the golden log of a real conversation: the last reply against the frozen num_ctx', () => {
    const log = golden as unknown as QEvent[];
    const last = log.filter((e) => e.type === 'assistant.message').at(-1)!;
    const opened = log.find((e) => e.type === 'input.received')!;
    const want = (last.payload as { usage: { promptTokens: number } }).usage.promptTokens;
    const window = (opened.payload as { caps: { numCtx: number } }).caps.numCtx;
    expect(want).toBeGreaterThan(0);
    expect(contextUse(foldAll(log[0].session, log))).toEqual({ used: want, window, fill: want / window, estimated: false, warn: false });
  });

  it.each([
    { name: 'no reply yet', events: [input(0, 'r1', 8192)], want: null },
    { name: 'a reply with no count (an interrupted one)', events: [input(0, 'r1', 8192), reply(1, 'r1', 0)], want: null },
    { name: 'a reply', events: [input(0, 'r1', 8192), reply(1, 'r1', 5120)], want: { used: 5120, window: 8192, estimated: false, warn: false } },
    {
      name: 'the last run counts, with its own window',
      events: [input(0, 'r1', 8192), reply(1, 'r1', 5120), input(2, 'r2', 4096), reply(3, 'r2', 2900)],
      want: { used: 2900, window: 4096, estimated: false, warn: true },
    },
    {
      name: 'a compaction after the reply: its estimate of what is left',
      events: [input(0, 'r1', 8192), reply(1, 'r1', 6400), compaction(2, 'r1', 3000, 8192)],
      want: { used: 3000, window: 8192, estimated: true, warn: false },
    },
    {
      name: "a compaction measured the model's smaller trained window",
      events: [input(0, 'r1', 8192), compaction(1, 'r1', 1500, 4096), reply(2, 'r1', 2000)],
      want: { used: 2000, window: 4096, estimated: false, warn: false },
    },
    { name: 'no window known', events: [reply(0, 'r1', 100)], want: null },
  ])('$name', ({ events, want }) => {
    const got = use(events);
    if (want === null) expect(got).toBeNull();
    else expect(got).toEqual({ ...want, fill: want.used / want.window });
  });

  it('warns from WARN_AT, before the compaction at COMPACT_AT', () => {
    expect(WARN_AT).toBeLessThan(COMPACT_AT);
    const at = (tokens: number) => use([input(0, 'r1', 10000), reply(1, 'r1', tokens)])!.warn;
    expect(at(Math.floor(WARN_AT * 10000) - 1)).toBe(false);
    expect(at(Math.ceil(WARN_AT * 10000))).toBe(true);
  });
});
