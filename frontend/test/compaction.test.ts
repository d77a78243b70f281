import { describe, expect, it } from 'vitest';
import { fold, foldAll, emptyConversation } from '../src/lib/conversation';
import { compactionLabel } from '../src/lib/format';
import type { EventPayloads, EventTypeName, QEvent } from '../src/lib/protocol';
import { event } from './events';

const S = 'sess-c';

function ev<T extends EventTypeName>(seq: number, type: T, payload: Partial<EventPayloads[T]> = {}, runId?: string): QEvent {
  return event(S, seq, type, payload, runId);
}

const record = {
  strategy: 'drop-logs',
  trigger: 'size',
  figures: { tokens: 3121, window: 4096, fill: 0.76, topSource: 'read_note', topSourceShare: 0.7, duplicateRatio: 0, lowValueShare: 0.7, index: 0.7 },
  beforeTokens: 3121,
  afterTokens: 2704,
  dropped: ['read_note output, 968 characters, event 5'],
};

// A fact, the request, two reads, then a compaction of seqs 4..7.
const log: QEvent[] = [
  ev(0, 'session.created', { title: 'Long task' }),
  ev(1, 'user.message', { text: 'Remember: BLUEBIRD-7' }),
  ev(2, 'run.started', {}, 'r1'),
  ev(3, 'user.message', { text: 'Read my notes' }),
  ev(4, 'assistant.message', { content: '', toolCalls: [{ id: 'c1', name: 'read_note', arguments: '{"path":"a.md"}' }] }, 'r1'),
  ev(5, 'tool.result', { callId: 'c1', name: 'read_note', content: 'a long note' }, 'r1'),
  ev(6, 'assistant.message', { content: 'reading b', toolCalls: [{ id: 'c2', name: 'read_note', arguments: '{"path":"b.md"}' }] }, 'r1'),
  ev(7, 'tool.result', { callId: 'c2', name: 'read_note', content: 'another note' }, 'r1'),
  ev(8, 'history.replace', { from: 4, to: 7, summary: 'Assistant called read_note {"path":"a.md"}\n[dropped: …]', compaction: record }, 'r1'),
];

describe('compaction marker', () => {
  it('is an item where the compaction happened, with the stub, the figures and the originals', () => {
    const conv = foldAll(S, log);
    const last = conv.items[conv.items.length - 1];
    expect(last.kind).toBe('compaction');
    expect(last.key).toBe(8);
    expect(last.text).toContain('[dropped: …]');
    expect(last.compaction).toMatchObject({ from: 4, to: 7, strategy: 'drop-logs', trigger: 'size', beforeTokens: 3121, afterTokens: 2704, index: 0.7 });
    expect(last.compaction!.dropped).toEqual(['read_note output, 968 characters, event 5']);
    expect(last.compaction!.originals).toEqual([
      { seq: 4, role: 'assistant', text: '', name: 'read_note {"path":"a.md"}' },
      { seq: 5, role: 'tool', text: 'a long note', name: 'read_note' },
      { seq: 6, role: 'assistant', text: 'reading b', name: 'read_note {"path":"b.md"}' },
      { seq: 7, role: 'tool', text: 'another note', name: 'read_note' },
    ]);
  });

  it('keeps the originals on screen: nothing before the marker disappears', () => {
    const before = foldAll(S, log.slice(0, 8));
    const after = foldAll(S, log);
    expect(after.items.slice(0, before.items.length)).toEqual(before.items);
    expect(after.items.filter((i) => i.kind === 'user').map((i) => i.text)).toEqual(['Remember: BLUEBIRD-7', 'Read my notes']);
  });

  it('finds its originals when folded live, one event at a time', () => {
    let conv = emptyConversation(S);
    for (const e of log) conv = fold(conv, [e]);
    expect(conv.items).toEqual(foldAll(S, log).items);
  });

  it('a replace without a compaction record (made otherwise) still shows, unlabelled', () => {
    const conv = foldAll(S, [...log.slice(0, 8), ev(8, 'history.replace', { from: 1, to: 1, summary: 'a note' })]);
    const m = conv.items[conv.items.length - 1];
    expect(m.compaction).toMatchObject({ strategy: '', trigger: '', from: 1, to: 1 });
    expect(m.compaction!.originals.map((o) => o.text)).toEqual(['Remember: BLUEBIRD-7']);
  });

  it('a later compaction over an earlier summary marks the earlier marker superseded', () => {
    const more: QEvent[] = [
      ev(9, 'assistant.message', { content: '', toolCalls: [{ id: 'c3', name: 'read_note', arguments: '{"path":"c.md"}' }] }, 'r1'),
      ev(10, 'tool.result', { callId: 'c3', name: 'read_note', content: 'a third note' }, 'r1'),
      ev(11, 'history.replace', { from: 4, to: 10, summary: 'Read a, b and c.', compaction: { ...record, strategy: 'summarise' } }, 'r1'),
    ];
    const conv = foldAll(S, [...log, ...more]);
    const markers = conv.items.filter((i) => i.kind === 'compaction');
    expect(markers.map((m) => [m.key, m.compaction!.supersededBy])).toEqual([
      [8, 11],
      [11, undefined],
    ]);
    // The later marker lists every original message of its range, the earlier ones' included.
    expect(markers[1].compaction!.originals.map((o) => o.seq)).toEqual([4, 5, 6, 7, 9, 10]);
  });

  it('a replace with a broken range is ignored', () => {
    const conv = foldAll(S, [...log.slice(0, 8), ev(8, 'history.replace', { summary: 'x' })]);
    expect(conv.items.some((i) => i.kind === 'compaction')).toBe(false);
  });
});

describe('compactionLabel', () => {
  it.each([
    [{ strategy: 'summarise', trigger: 'size', beforeTokens: 3121, afterTokens: 2704 }, 'Earlier messages compacted (summarised) because the context was getting full · 3,121 → 2,704 tokens'],
    [{ strategy: 'drop-logs', trigger: 'pollution' }, 'Earlier messages compacted (long tool output dropped) because the context was crowded by one kind of content'],
    [{ strategy: 'extract-facts', trigger: 'overflow', beforeTokens: 5000, afterTokens: 3000 }, 'Earlier messages compacted (facts moved to working memory) because the model refused a request longer than its context · 5,000 → 3,000 tokens'],
    [{ strategy: '', trigger: '' }, 'Earlier messages compacted'],
  ])('%o', (c, want) => {
    expect(compactionLabel(c)).toBe(want);
  });
});
