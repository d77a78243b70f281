// Long conversations render only what is on screen or near it: the items
// between `start` and `end`, with a spacer above and below standing for the
// heights of the rest (measured once an item was drawn, estimated before).
// The maths is here, pure, so it is tested without a browser; the
// Conversation component measures, scrolls and draws.

/** Below this many items everything is drawn: the maths would cost more than it saves. */
export const WINDOW_FROM = 60;
/** The height assumed for an item not drawn yet. */
export const ESTIMATED_HEIGHT = 120;
/** How far past the visible part items are kept drawn, above and below (px). */
export const OVERSCAN = 1200;

export interface WindowRange {
  /** The first item drawn. */
  start: number;
  /** One past the last item drawn. */
  end: number;
  /** The height the spacer above stands for (the items before start). */
  before: number;
  /** The height the spacer below stands for (the items from end on). */
  after: number;
}

/**
 * Which of `heights.length` items to draw for a viewport `viewport` px tall
 * scrolled to `scrollTop`, keeping `overscan` px drawn on either side. The
 * range is never empty when there are items: a viewport past the end (a
 * stale scrollTop) draws the last ones.
 */
export function windowRange(heights: readonly number[], scrollTop: number, viewport: number, overscan = OVERSCAN): WindowRange {
  const n = heights.length;
  if (n === 0) return { start: 0, end: 0, before: 0, after: 0 };
  const at = Math.max(0, scrollTop); // an elastic overscroll reads negative
  const top = Math.max(0, at - overscan);
  const bottom = Math.max(top, at + Math.max(0, viewport) + overscan);
  let y = 0;
  let start = -1;
  let end = n;
  let before = 0;
  for (let i = 0; i < n; i++) {
    const h = Math.max(0, heights[i]);
    if (start < 0 && y + h > top) {
      start = i;
      before = y;
    }
    if (start >= 0 && y >= bottom) {
      end = i;
      break;
    }
    y += h;
  }
  if (start < 0) {
    // Scrolled past everything: draw the last item.
    start = n - 1;
    before = y - Math.max(0, heights[n - 1]);
  }
  end = Math.max(end, start + 1);
  let after = 0;
  for (let i = end; i < n; i++) after += Math.max(0, heights[i]);
  return { start, end, before, after };
}

/** The top of item `index` when items have these heights. */
export function offsetOf(heights: readonly number[], index: number): number {
  let y = 0;
  for (let i = 0; i < Math.min(index, heights.length); i++) y += Math.max(0, heights[i]);
  return y;
}

/** The index of the item that holds event `seq`: the last one whose key is not past it, or -1. */
export function indexOfSeq(keys: readonly number[], seq: number): number {
  // Keys are seqs in ascending order (each item's first event).
  let lo = 0;
  let hi = keys.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] <= seq) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** How many of `keys` came after `seen` (the last key the reader saw): the "new" count of Jump to latest. */
export function countAfter(keys: readonly number[], seen: number): number {
  const i = indexOfSeq(keys, seen);
  return keys.length - (i + 1);
}

/**
 * The scroll correction when the item at `index` changed height by `delta`
 * (`heights` as they were before the change):
 * an item wholly above the viewport's top pushes what the reader sees down,
 * so the scroll position moves with it; one in view or below moves nothing.
 */
export function anchorShift(heights: readonly number[], index: number, delta: number, scrollTop: number): number {
  const bottomOfItem = offsetOf(heights, index) + Math.max(0, heights[index] ?? 0);
  return bottomOfItem <= scrollTop ? delta : 0;
}

/**
 * Where the conversation list offers its jump: App makes one, the
 * Conversation component attaches its reveal, and other parts (the search
 * palette) call reveal(seq) to bring the item holding event `seq` into
 * view. Before a list is attached, reveal says false.
 */
/** Where App puts its ConversationView for the parts that jump to a message. */
export const CONVERSATION_VIEW_CONTEXT = Symbol('conversation-view');

export class ConversationView {
  private target: ((seq: number) => Promise<boolean>) | null = null;

  /** The list's own reveal; returns the detach. */
  attach(reveal: (seq: number) => Promise<boolean>): () => void {
    this.target = reveal;
    return () => {
      if (this.target === reveal) this.target = null;
    };
  }

  reveal(seq: number): Promise<boolean> {
    return this.target ? this.target(seq) : Promise.resolve(false);
  }
}
