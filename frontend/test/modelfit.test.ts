// The model the user has: an empty reply is never shown as nothing, and a
// model without tools is said to be one (issue 16, "work with the model").
import { describe, expect, it } from 'vitest';
import { EMPTY_FALLBACK, foldAll, leftOutText, NOTE_NOTICE, toolsOffText } from '../src/lib/conversation';
import type { Capabilities, EventPayloads, EventTypeName, QEvent } from '../src/lib/protocol';
import { event } from './events';

const S = 's1';
function ev<T extends EventTypeName>(seq: number, type: T, payload: Partial<EventPayloads[T]> = {}, runId?: string): QEvent {
  return event(S, seq, type, payload, runId);
}

/** The sentence kernel/core ends an empty run with (core.EmptyReplySentence). */
const EMPTY = 'The model returned nothing, even when asked again. Retry, or choose another model in Settings.';
const NOTE = 'Your last reply was empty: no text and no tool call. Answer in text, or call one of the tools you were given (only those exist).';

/** A run the model answered with nothing twice: the reply, the note, the reply, the end. */
function emptyRun(run: string, seq: number, text: string, end: Partial<EventPayloads['run.finished']>): QEvent[] {
  return [
    ev(seq, 'input.received', { inputId: `in-${run}`, intent: 'follow_up', text, runId: run }),
    ev(seq + 1, 'run.started', { model: 'qwen3:4b', inputId: `in-${run}` }, run),
    ev(seq + 2, 'user.message', { text, inputId: `in-${run}`, intent: 'follow_up' }, run),
    ev(seq + 3, 'assistant.message', { step: 1, content: '', model: 'qwen3:4b' }, run),
    ev(seq + 4, 'user.message', { text: NOTE, inputId: `${run}-note-1`, intent: 'note' }, run),
    ev(seq + 5, 'assistant.message', { step: 2, content: '', model: 'qwen3:4b' }, run),
    ev(seq + 6, 'run.finished', end, run),
  ];
}

describe('an empty reply is never silent', () => {
  it('the note is a notice, not a user bubble, and the end is an error with Retry of the last message', () => {
    const conv = foldAll(S, [ev(0, 'session.created', { title: 'x' }), ...emptyRun('r1', 1, 'list my notes', { reason: 'empty', error: EMPTY })]);
    const shown = conv.items.map((it) => [it.kind, it.text]);
    expect(shown).toEqual([
      ['user', 'list my notes'],
      ['notice', NOTE_NOTICE],
      ['error', EMPTY],
    ]);
    expect(conv.items.some((it) => it.text === NOTE)).toBe(false);
    expect(conv.items[2].retry).toBe('list my notes');
    expect(conv.activeRun).toBeNull();
  });

  it('without a sentence from Go the fallback says what happened', () => {
    const conv = foldAll(S, emptyRun('r1', 0, 'hi', { reason: 'empty' }));
    const last = conv.items[conv.items.length - 1];
    expect([last.kind, last.text, last.retry]).toEqual(['error', EMPTY_FALLBACK, 'hi']);
  });

  it('Retry sends the words of the latest message, not an earlier one', () => {
    const first = [
      ev(0, 'input.received', { inputId: 'a', intent: 'follow_up', text: 'first', runId: 'r0' }),
      ev(1, 'run.started', { model: 'qwen3:4b', inputId: 'a' }, 'r0'),
      ev(2, 'user.message', { text: 'first', inputId: 'a', intent: 'follow_up' }, 'r0'),
      ev(3, 'assistant.message', { step: 1, content: 'Done.', model: 'qwen3:4b' }, 'r0'),
      ev(4, 'run.finished', { reason: 'completed' }, 'r0'),
    ];
    const conv = foldAll(S, [...first, ...emptyRun('r1', 5, 'second', { reason: 'empty', error: EMPTY })]);
    expect(conv.items[conv.items.length - 1].retry).toBe('second');
  });

  it('an answer after the note shows the answer, with the notice above it', () => {
    const evs = emptyRun('r1', 0, 'hi', { reason: 'completed' });
    evs.splice(5, 1, ev(5, 'assistant.message', { step: 2, content: 'Hello!', model: 'qwen3:4b' }, 'r1'));
    const conv = foldAll(S, evs);
    expect(conv.items.map((it) => [it.kind, it.text])).toEqual([
      ['user', 'hi'],
      ['notice', NOTE_NOTICE],
      ['assistant', 'Hello!'],
    ]);
  });
});

describe('a model without tools is said to be one, once per conversation', () => {
  const caps = (model: string, extra: Partial<Capabilities> = {}): Capabilities =>
    ({ model, numCtx: 4096, profile: 'ask', limits: {}, ...extra }) as Capabilities;
  const off = caps('gemma3:1b', {
    toolsOff: 'model',
    withheld: ['list_notes', 'read_note', 'search_docs', 'remember'],
    toolModels: ['qwen3:4b'],
  });
  const send = (seq: number, run: string, c: Capabilities): QEvent[] => [
    ev(seq, 'input.received', { inputId: `in-${run}`, intent: 'follow_up', text: 'hi', runId: run, caps: c }),
    ev(seq + 1, 'run.started', { model: c.model, inputId: `in-${run}` }, run),
    ev(seq + 2, 'user.message', { text: 'hi', inputId: `in-${run}`, intent: 'follow_up' }, run),
    ev(seq + 3, 'assistant.message', { step: 1, content: 'Hello.', model: c.model }, run),
    ev(seq + 4, 'run.finished', { reason: 'completed' }, run),
  ];

  it('says what Quire cannot do and which installed model could', () => {
    expect(toolsOffText(off)).toBe(
      'gemma3:1b cannot use tools, so in this chat Quire cannot read or change your notes, search your documents or remember things for later. qwen3:4b can: choose it in Settings.',
    );
  });

  it('with no model to suggest it says where to choose one', () => {
    expect(toolsOffText({ ...off, toolModels: undefined, toolsOff: 'refused' })).toBe(
      'Ollama refused tools for gemma3:1b, so in this chat Quire cannot read or change your notes, search your documents or remember things for later. Choose a model that can use tools in Settings to do these.',
    );
  });

  it('shows the notice once for the model, not on every message, and never for a model with tools', () => {
    const conv = foldAll(S, [...send(0, 'r1', off), ...send(5, 'r2', off), ...send(10, 'r3', caps('qwen3:4b'))]);
    const notices = conv.items.filter((it) => it.kind === 'notice');
    expect(notices.map((it) => it.text)).toEqual([toolsOffText(off)]);
    expect(notices[0].tone).toBe('warn');
    expect(conv.items.filter((it) => it.kind === 'assistant')).toHaveLength(3);
  });
});

describe('tools left out to fit a small context are named, once', () => {
  const small = {
    model: 'small:1b',
    numCtx: 4096,
    profile: 'ask',
    limits: {},
    tools: [{ name: 'move_note' }, { name: 'read_note' }],
    leftOut: ['remember', 'search_docs'],
  } as unknown as Capabilities;
  const send = (seq: number, run: string, c: Capabilities): QEvent[] => [
    ev(seq, 'input.received', { inputId: `in-${run}`, intent: 'follow_up', text: 'move it', runId: run, caps: c }),
    ev(seq + 1, 'run.started', { model: c.model, inputId: `in-${run}` }, run),
    ev(seq + 2, 'user.message', { text: 'move it', inputId: `in-${run}`, intent: 'follow_up' }, run),
    ev(seq + 3, 'assistant.message', { step: 1, content: 'Done.', model: c.model }, run),
    ev(seq + 4, 'run.finished', { reason: 'completed' }, run),
  ];

  it('says how many were offered and which were left out, in numbers that agree', () => {
    expect(leftOutText(small)).toBe(
      "All of Quire's tools would not fit small:1b's context of 4,096 tokens, so this request offers the 2 it needs most and leaves out remember and search_docs. Ask for what those do by name, or choose a model with a larger context in Settings.",
    );
  });

  it('shows the notice once for the same set', () => {
    const conv = foldAll(S, [...send(0, 'r1', small), ...send(5, 'r2', small)]);
    expect(conv.items.filter((it) => it.kind === 'notice').map((it) => it.text)).toEqual([leftOutText(small)]);
  });
});
