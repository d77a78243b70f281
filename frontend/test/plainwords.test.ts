// @vitest-environment jsdom
// Plain words (issue 31): a tool call reads as what it does, its tool's
// name one click away; token counts and Regenerate only under a request's
// last reply; search hits and passages without Markdown marks.
import { flushSync, mount, unmount } from 'svelte';
import { describe, expect, it } from 'vitest';
import ToolCallCard from '../src/components/ToolCallCard.svelte';
import { foldAll, isRunEnd } from '../src/lib/conversation';
import { plainText, toolPhrase } from '../src/lib/toolwords';
import { event as ev } from './events';

describe('toolPhrase', () => {
  it.each([
    ['list_notes', 'Listed the notes'],
    ['search_docs', 'Searched the documents'],
    ['move_note', 'Moved a note'],
    ['garden__water_plants', 'water plants (garden)'],
    ['some_new_tool', 'some new tool'],
  ])('%s', (name, want) => expect(toolPhrase(name)).toBe(want));
});

describe('plainText', () => {
  it.each([
    ['**Water** the [basil](notes/basil.md) daily', 'Water the basil daily'],
    ['## Budget\n- rent\n- [ ] food', 'Budget\nrent\nfood'],
    ['see [[garden/Basil|the basil note]] and `code`', 'see the basil note and code'],
    ['an *emphasis* and a_snake_name', 'an emphasis and a_snake_name'],
    ['plain words stay', 'plain words stay'],
  ])('%j', (text, want) => expect(plainText(text)).toBe(want));
});

describe('a tool card', () => {
  it('says what the call does, and names its tool under Details', () => {
    const target = document.createElement('div');
    document.body.append(target);
    const card = mount(ToolCallCard, { target, props: { call: { id: 'c1', name: 'list_notes', arguments: '{"path":"inbox"}', phase: 'finished', status: 'success', content: '3 notes' } } });
    flushSync();
    expect(target.querySelector('[data-testid="tool-phrase"]')?.textContent).toBe('Listed the notes');
    const details = target.querySelector<HTMLDetailsElement>('[data-testid="tool-details"]')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('[data-testid="tool-raw-name"]')?.textContent).toBe('list_notes');
    unmount(card);
    target.remove();
  });
});

describe('a request of two steps', () => {
  it('has its token counts and Regenerate under its last reply only', () => {
    const usage = { promptTokens: 900, outputTokens: 20, durationNs: 1e9 };
    const c = foldAll('a', [
      ev('a', 0, 'session.created', { title: 'a' }),
      ev('a', 1, 'run.started', {}, 'r'),
      ev('a', 2, 'user.message', { text: 'tidy inbox' }, 'r'),
      ev('a', 3, 'assistant.message', { step: 1, content: 'Let me look at inbox first.', toolCalls: [{ id: 'c1', name: 'list_notes', arguments: '{}' }], usage }, 'r'),
      ev('a', 4, 'tool.started', { callId: 'c1', name: 'list_notes' }, 'r'),
      ev('a', 5, 'tool.result', { callId: 'c1', name: 'list_notes', status: 'success', content: 'a.md', durationNs: 1e6 }, 'r'),
      ev('a', 6, 'assistant.message', { step: 2, content: 'Done.', usage }, 'r'),
      ev('a', 7, 'run.finished', { reason: 'completed' }, 'r'),
    ]);
    const replies = c.items.filter((i) => i.kind === 'assistant');
    expect(replies.map((i) => i.text)).toEqual(['Let me look at inbox first.', 'Done.']);
    expect(replies.map((i) => isRunEnd(c.items, i))).toEqual([false, true]);
  });
});
