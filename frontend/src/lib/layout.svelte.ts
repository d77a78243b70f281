// Whether the sidebar is shown. At small widths it starts collapsed, on a
// wide window open; the toggle's choice is remembered for each of the two
// (in the page's localStorage), so collapsing it on a wide screen does not
// hide it on every narrow one, nor the other way round.

/** Below this width the sidebar starts collapsed. */
export const NARROW_QUERY = '(max-width: 880px)';
const KEYS = { narrow: 'quire.sidebar.narrow', wide: 'quire.sidebar.wide' } as const;

type Choice = 'open' | 'collapsed';

/** The parts of localStorage and matchMedia used (tests hand in their own). */
export interface LayoutHost {
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  media: Pick<MediaQueryList, 'matches' | 'addEventListener' | 'removeEventListener'> | null;
}

function pageHost(): LayoutHost {
  if (typeof window === 'undefined') return { storage: null, media: null };
  let storage: Storage | null = null;
  try {
    storage = window.localStorage;
  } catch {
    // storage refused (a private window): nothing is remembered
  }
  return { storage, media: typeof window.matchMedia === 'function' ? window.matchMedia(NARROW_QUERY) : null };
}

function read(storage: LayoutHost['storage'], key: string): Choice | null {
  try {
    const v = storage?.getItem(key);
    return v === 'open' || v === 'collapsed' ? v : null;
  } catch {
    return null;
  }
}

export class SidebarLayout {
  narrow = $state(false);
  private choice = $state<{ narrow: Choice | null; wide: Choice | null }>({ narrow: null, wide: null });
  readonly collapsed = $derived.by(() => {
    const c = this.narrow ? this.choice.narrow : this.choice.wide;
    return c ? c === 'collapsed' : this.narrow;
  });

  constructor(private readonly host: LayoutHost = pageHost()) {
    this.narrow = host.media?.matches ?? false;
    this.choice = { narrow: read(host.storage, KEYS.narrow), wide: read(host.storage, KEYS.wide) };
  }

  /** Follows the window's width; returns the stop. */
  start(): () => void {
    const media = this.host.media;
    if (!media) return () => {};
    const on = (e: MediaQueryListEvent) => (this.narrow = e.matches);
    media.addEventListener('change', on);
    return () => media.removeEventListener('change', on);
  }

  toggle(): void {
    const next: Choice = this.collapsed ? 'open' : 'collapsed';
    const which = this.narrow ? 'narrow' : 'wide';
    this.choice = { ...this.choice, [which]: next };
    try {
      this.host.storage?.setItem(KEYS[which], next);
    } catch {
      // full or refused: the choice holds for this window only
    }
  }
}
