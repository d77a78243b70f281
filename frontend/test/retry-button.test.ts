// @vitest-environment jsdom
// The error a run the model answered with nothing ends with: its Retry
// button sends the user's last message again, and is not offered while a
// request is going or for other errors.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import Message from '../src/components/Message.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';
import type { Item } from '../src/lib/conversation';

/** The part of ChatStore a message's Retry uses, recording what it sends. */
function chatStub(running: boolean) {
  const sent: string[] = [];
  const chat = {
    running,
    retry: (text: string) => {
      sent.push(text);
      return Promise.resolve(true);
    },
  };
  return { chat: chat as unknown as ChatStore, sent };
}

const empty: Item = { key: 9, kind: 'error', text: 'The model returned nothing, even when asked again.', runId: 'r1', streaming: false, retry: 'list my notes' };

let mounted: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});

function show(item: Item, running = false) {
  const { chat, sent } = chatStub(running);
  mounted = mount(Message, { target: document.body, props: { item, chat } });
  flushSync();
  return { sent, button: document.querySelector<HTMLButtonElement>('[data-testid="retry"]') };
}

describe('Retry after an empty reply', () => {
  it('shows the sentence and sends the last message again', () => {
    const { sent, button } = show(empty);
    expect(document.querySelector('[data-part="body"]')?.textContent).toBe(empty.text);
    expect(button?.textContent).toBe('Retry');
    button!.click();
    expect(sent).toEqual(['list my notes']);
  });

  it('is disabled while a request is going', () => {
    const { sent, button } = show(empty, true);
    expect(button?.disabled).toBe(true);
    button!.click();
    expect(sent).toEqual([]);
  });

  it('is not offered for an error with nothing to send again', () => {
    const { button } = show({ ...empty, retry: undefined });
    expect(button).toBeNull();
  });
});
