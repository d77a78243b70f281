// The search palette's pure parts (Ctrl+K): which item of a conversation
// shows a hit's message, and moving the selection. Tested in
// test/find.test.ts.
import type { Conversation } from './conversation';
import type { MessageHit } from './protocol';

/**
 * The key of the item that shows the message of event `seq`: the user
 * message whose event it is, the reply whose assistant.message it is, or —
 * a message the conversation does not show as its own item — the last item
 * that began before it. null when the conversation has no such item.
 */
export function itemKeyFor(conv: Conversation | null, seq: number): number | null {
  const items = conv?.items ?? [];
  const exact = items.find((i) => i.key === seq || i.messageSeq === seq);
  if (exact) return exact.key;
  let before: number | null = null;
  for (const i of items) if (i.key <= seq && (before === null || i.key > before)) before = i.key;
  return before;
}

/** The selection after moving by `delta` among `n` hits, wrapping around; -1 when there is none. */
export function moveSelection(i: number, n: number, delta: number): number {
  if (n <= 0) return -1;
  if (i < 0) return delta < 0 ? n - 1 : 0;
  return (((i + delta) % n) + n) % n;
}

/** Who said a hit's message, as the conversation names them. */
export function speaker(h: MessageHit): string {
  return h.role === 'user' ? 'You' : 'Quire';
}
