// Quire's own tooltips in place of the browser's: a native title tooltip
// lingered after the pointer left (WebKitGTK keeps it until the next
// motion over the page) and was cut at the window's edge (issue 31). The
// page keeps writing `title` as before; while an element is hovered its
// title moves to data-tip (so no native tooltip shows) and a bubble held
// inside the window says it; it goes at once on leave, a press, a key or
// a scroll, and the title comes back.

/** A box in viewport pixels. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The gap between the element and its tip, and the least margin to the window's edge. */
export const GAP = 6;
export const MARGIN = 4;

/**
 * Where a tip of size `tip` goes for an element at `anchor` in a window of
 * `view`: centred under it, above when there is no room below, and moved
 * in so that it is whole inside the window (a tip wider than the window
 * starts at its margin).
 */
export function placeTip(anchor: Box, tip: { width: number; height: number }, view: { width: number; height: number }): { left: number; top: number } {
  let top = anchor.top + anchor.height + GAP;
  if (top + tip.height > view.height - MARGIN && anchor.top - GAP - tip.height >= MARGIN) top = anchor.top - GAP - tip.height;
  top = Math.max(MARGIN, Math.min(top, view.height - MARGIN - tip.height));
  let left = anchor.left + anchor.width / 2 - tip.width / 2;
  left = Math.max(MARGIN, Math.min(left, view.width - MARGIN - tip.width));
  return { left, top };
}

/** How long the pointer rests on an element before its tip shows (ms). */
export const SHOW_DELAY_MS = 450;

/** The tip being shown (or about to be): its text and where it goes. */
export interface Tip {
  text: string;
  anchor: Box;
}

/**
 * Follows the pointer over `root` and calls `show` with the hovered
 * element's tip after SHOW_DELAY_MS, `show(null)` the moment it should go.
 * Returns the stop function.
 */
export function followTips(root: Document, show: (t: Tip | null) => void, delay = SHOW_DELAY_MS): () => void {
  let current: HTMLElement | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const restore = () => {
    clearTimeout(timer);
    if (current) {
      const text = current.dataset.tip;
      if (text !== undefined && !current.hasAttribute('title')) current.setAttribute('title', text);
      delete current.dataset.tip;
      current = null;
    }
    show(null);
  };
  const over = (e: Event) => {
    const el = (e.target as Element | null)?.closest?.<HTMLElement>('[title], [data-tip]') ?? null;
    if (el === current) return;
    restore();
    if (!el) return;
    const text = el.getAttribute('title') ?? el.dataset.tip ?? '';
    if (!text.trim()) return;
    current = el;
    el.dataset.tip = text;
    el.removeAttribute('title');
    timer = setTimeout(() => {
      if (current !== el || !el.isConnected) return restore();
      const r = el.getBoundingClientRect();
      show({ text, anchor: { left: r.left, top: r.top, width: r.width, height: r.height } });
    }, delay);
  };
  const out = (e: Event) => {
    const to = (e as PointerEvent).relatedTarget as Node | null;
    if (current && (!to || !current.contains(to))) restore();
  };
  const gone = () => restore();
  const win = root.defaultView;
  root.addEventListener('pointerover', over, true);
  root.addEventListener('pointerout', out, true);
  root.addEventListener('pointerdown', gone, true);
  root.addEventListener('keydown', gone, true);
  root.addEventListener('wheel', gone, { capture: true, passive: true });
  root.addEventListener('scroll', gone, true);
  win?.addEventListener('blur', gone);
  return () => {
    restore();
    root.removeEventListener('pointerover', over, true);
    root.removeEventListener('pointerout', out, true);
    root.removeEventListener('pointerdown', gone, true);
    root.removeEventListener('keydown', gone, true);
    root.removeEventListener('wheel', gone, true);
    root.removeEventListener('scroll', gone, true);
    win?.removeEventListener('blur', gone);
  };
}
