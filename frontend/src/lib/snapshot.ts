// Builds the test probe's view snapshot from what is on screen: message texts
// are read from the DOM (the textContent of the rendered Markdown), so the
// probe sees what a person sees.
import type { ViewSnapshot } from './protocol';

type Role = ViewSnapshot['messages'][number]['role'];
const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'error', 'notice']);

export interface SnapshotState {
  activeSession: string | null;
  sessionTitles: string[];
  streaming: boolean;
}

/** Collapses runs of whitespace and trims. */
export function plainText(s: string | null | undefined): string {
  return (s ?? '').replace(/\s+/g, ' ').trim();
}

/** Reads the rendered messages under `root` ([data-testid="message"], in document order). */
export function readMessages(root: ParentNode): ViewSnapshot['messages'] {
  const out: ViewSnapshot['messages'] = [];
  root.querySelectorAll<HTMLElement>('[data-testid="message"]').forEach((el) => {
    const role = el.getAttribute('data-role') ?? '';
    if (!ROLES.has(role)) return;
    const body = el.querySelector('[data-part="body"]') ?? el;
    out.push({ role: role as Role, text: (body.textContent ?? '').trim() });
  });
  return out;
}

/** The banner's text, or null when no banner is shown. */
export function readBanner(root: ParentNode): string | null {
  const el = root.querySelector('[data-testid="banner"]');
  return el ? plainText(el.textContent) : null;
}

/** The memory panel's items as shown, or null when the panel is closed. */
export function readMemory(root: ParentNode): NonNullable<ViewSnapshot['memory']> | null {
  if (!root.querySelector('[data-testid="memory-panel"]')) return null;
  return [...root.querySelectorAll<HTMLElement>('[data-testid="memory-item"]')].map((el) => ({
    kind: el.getAttribute('data-kind') ?? '',
    status: el.getAttribute('data-status') ?? '',
    text: plainText(el.querySelector('[data-testid="memory-text"]')?.textContent),
  }));
}

export function buildSnapshot(state: SnapshotState, root: ParentNode): ViewSnapshot {
  const memory = readMemory(root);
  return {
    activeSession: state.activeSession,
    sessionTitles: state.sessionTitles.slice(),
    messages: readMessages(root),
    banner: readBanner(root),
    streaming: state.streaming,
    ...(memory ? { memory } : {}),
  };
}

/**
 * Calls `send` with the snapshot at most once per `delayMs` of quiet, and only
 * when it changed since the last report. Errors from `send` are swallowed: the
 * probe must never disturb the app.
 */
export function createReporter(
  take: () => ViewSnapshot,
  send: (s: ViewSnapshot) => Promise<void>,
  delayMs = 100,
  timers: { set: (f: () => void, ms: number) => unknown; clear: (t: unknown) => void } = {
    // Wrapped: a browser's setTimeout called as a method of another object throws "Illegal invocation".
    set: (f, ms) => setTimeout(f, ms),
    clear: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  },
) {
  let timer: unknown = null;
  let last = '';
  const flush = () => {
    timer = null;
    let snap: ViewSnapshot;
    try {
      snap = take();
    } catch {
      return;
    }
    const json = JSON.stringify(snap);
    if (json === last) return;
    last = json;
    try {
      send(snap).catch(() => {});
    } catch {
      /* swallowed */
    }
  };
  return {
    schedule() {
      if (timer !== null) timers.clear(timer);
      timer = timers.set(flush, delayMs);
    },
    cancel() {
      if (timer !== null) timers.clear(timer);
      timer = null;
    },
  };
}
