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

/** The documents panel's rows, or undefined when it is closed. */
export function readDocuments(root: ParentNode): ViewSnapshot['documents'] {
  if (!root.querySelector('[data-testid="documents-panel"]')) return undefined;
  return Array.from(root.querySelectorAll<HTMLElement>('[data-testid="doc-item"]'), (el) => ({
    name: plainText(el.querySelector('[data-testid="doc-name"]')?.textContent),
    status: el.getAttribute('data-status') ?? '',
    reason: plainText(el.querySelector('[data-testid="doc-reason"]')?.textContent),
  }));
}

/** The indexing bar, or undefined when it is not shown. */
export function readIndexing(root: ParentNode): ViewSnapshot['indexing'] {
  const el = root.querySelector<HTMLElement>('[data-testid="indexing-bar"]');
  if (!el) return undefined;
  return {
    phase: el.getAttribute('data-phase') ?? '',
    done: Number(el.getAttribute('data-done')) || 0,
    total: Number(el.getAttribute('data-total')) || 0,
    label: plainText(el.querySelector('[data-testid="indexing-label"]')?.textContent),
  };
}

/** The text of each citation link in the messages, or undefined when there is none. */
export function readCitations(root: ParentNode): string[] | undefined {
  const links = Array.from(root.querySelectorAll('[data-testid="citation-link"]'), (el) => plainText(el.textContent));
  return links.length ? links : undefined;
}

/** The centre of each citation link in the viewport, or undefined when there is none. */
export function readCitationPoints(root: ParentNode): { x: number; y: number }[] | undefined {
  const links = Array.from(root.querySelectorAll<HTMLElement>('[data-testid="citation-link"]'), (el) => {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
  });
  return links.length ? links : undefined;
}

/** The source viewer, or undefined when it is closed. */
export function readViewer(root: ParentNode): ViewSnapshot['viewer'] {
  const el = root.querySelector<HTMLElement>('[data-testid="source-viewer"]');
  if (!el) return undefined;
  return {
    name: plainText(el.querySelector('[data-testid="source-name"]')?.textContent),
    start: Number(el.getAttribute('data-start')) || 0,
    end: Number(el.getAttribute('data-end')) || 0,
    highlighted: Array.from(el.querySelectorAll('[data-testid="source-marked"] .txt'), (l) => l.textContent ?? '').join('\n'),
  };
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

/** The centre of the element in the viewport. */
function centre(el: Element): { x: number; y: number } {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
}

/** The first screen, or undefined when it is not shown. */
export function readFirstRun(root: ParentNode): ViewSnapshot['firstRun'] {
  const el = root.querySelector<HTMLElement>('[data-testid="first-run"]');
  if (!el) return undefined;
  const out: NonNullable<ViewSnapshot['firstRun']> = { state: el.getAttribute('data-state') ?? '' };
  const bar = el.querySelector('[data-testid="download-progress"]');
  if (bar) out.percent = Number(bar.getAttribute('aria-valuenow')) || 0;
  const status = el.querySelector('[data-testid="download-status"]');
  if (status) out.status = plainText(status.textContent);
  return out;
}

/** The models screen, or undefined when it is not open. */
export function readModels(root: ParentNode): ViewSnapshot['models'] {
  if (!root.querySelector('[data-testid="models-panel"]')) return undefined;
  return {
    installed: Array.from(root.querySelectorAll<HTMLElement>('[data-testid="model-row"]'), (el) => el.dataset.name ?? ''),
    pulls: Array.from(root.querySelectorAll<HTMLElement>('[data-testid="pull-row"]'), (el) => {
      const v = el.querySelector('[data-testid="pull-bar"]')?.getAttribute('aria-valuenow');
      return { name: el.dataset.name ?? '', state: el.dataset.state ?? '', percent: v ? Number(v) : null };
    }),
  };
}

/** The Settings screen, or undefined when it is not open. */
export function readSettings(root: ParentNode): ViewSnapshot['settings'] {
  if (!root.querySelector('[data-testid="settings-panel"]')) return undefined;
  const model = root.querySelector<HTMLInputElement>('[data-testid="settings-model"]');
  return { saved: !!root.querySelector('[data-testid="settings-saved"]'), model: model?.value ?? '' };
}

/** The controls a desktop test clicks (xdotool has no selectors). */
export const POINT_IDS = ['composer', 'example', 'models-open', 'pull-name', 'pull-start', 'settings-open', 'settings-model', 'settings-save', 'download-model', 'memory-open', 'inspect', 'inspector-copy', 'batches-open', 'batch-folder', 'batch-start', 'review-apply', 'confirm-delete', 'batch-undo', 'copy-message', 'standing-open', 'standing-close', 'standing-name', 'standing-folder', 'standing-save', 'standing-run', 'batches-close'];

/** The batch in the "Organise a folder" drawer, or undefined when it is not shown. */
export function readBatch(root: ParentNode): ViewSnapshot['batch'] {
  const el = root.querySelector<HTMLElement>('[data-testid="batch-view"]');
  if (!el) return undefined;
  return {
    state: el.dataset.state ?? '',
    done: Number(el.dataset.done) || 0,
    failed: Number(el.dataset.failed) || 0,
    total: Number(el.dataset.total) || 0,
    rows: Array.from(el.querySelectorAll<HTMLElement>('[data-testid="review-row"]'), (r) => ({
      from: r.dataset.from ?? '',
      to: r.dataset.to ?? '',
      selected: r.dataset.selected === 'true',
      tick: centre(r.querySelector('[data-testid="review-tick"]') ?? r),
    })),
  };
}

/** The Standing tasks panel and its button's dot, or undefined when neither is shown. */
export function readStanding(root: ParentNode): ViewSnapshot['standing'] {
  const badge = !!root.querySelector('[data-testid="standing-waiting"]');
  const list = root.querySelector('[data-testid="standing-list"]');
  if (!badge && !list) return undefined;
  return {
    badge,
    tasks: list
      ? Array.from(list.querySelectorAll<HTMLElement>(':scope > li'), (li) => ({
          name: plainText(li.querySelector('strong')?.textContent),
          paused: li.dataset.paused === 'true',
          waiting: li.dataset.waiting === 'true',
          last: plainText(li.querySelector('[data-testid="standing-last"]')?.textContent),
        }))
      : [],
  };
}

/** Where each of POINT_IDS on screen is, or undefined when none is. */
export function readPoints(root: ParentNode): ViewSnapshot['points'] {
  const out: NonNullable<ViewSnapshot['points']> = {};
  for (const id of POINT_IDS) {
    const el = root.querySelector(`[data-testid="${id}"]`);
    if (el) out[id] = centre(el);
  }
  return Object.keys(out).length ? out : undefined;
}

/** The inspector, or undefined when it is closed. */
export function readInspector(root: ParentNode): ViewSnapshot['inspector'] {
  const el = root.querySelector('[data-testid="inspector"]');
  if (!el) return undefined;
  return {
    calls: el.querySelectorAll('[data-testid="inspector-call"]').length,
    origins: Array.from(el.querySelectorAll('[data-testid="inspector-origin"]'), (o) => plainText(o.textContent)),
    copied: plainText(el.querySelector('[data-testid="inspector-copied"]')?.textContent),
  };
}

/** The context meter's label, or undefined when it is not shown. */
export function readContext(root: ParentNode): string | undefined {
  const el = root.querySelector('[data-testid="context-label"]');
  return el ? plainText(el.textContent) : undefined;
}

export function buildSnapshot(state: SnapshotState, root: ParentNode): ViewSnapshot {
  const memory = readMemory(root);
  const snap: ViewSnapshot = {
    activeSession: state.activeSession,
    sessionTitles: state.sessionTitles.slice(),
    messages: readMessages(root),
    banner: readBanner(root),
    streaming: state.streaming,
    ...(memory ? { memory } : {}),
  };
  // Documents parts only when on screen, so older probes see what they did.
  const parts = { documents: readDocuments(root), indexing: readIndexing(root), citations: readCitations(root), citationPoints: readCitationPoints(root), viewer: readViewer(root), firstRun: readFirstRun(root), context: readContext(root), models: readModels(root), settings: readSettings(root), inspector: readInspector(root), batch: readBatch(root), standing: readStanding(root), points: readPoints(root) };
  for (const [k, v] of Object.entries(parts)) if (v !== undefined) Object.assign(snap, { [k]: v });
  return snap;
}

/**
 * Calls `send` with the snapshot at most once per `delayMs` of quiet, and only
 * when it changed since the last report. Errors from `send` are swallowed: the
 * probe must never disturb the app.
 */
export function createReporter(
  take: () => ViewSnapshot,
  // Resolves false when the host keeps no snapshots (no test probe): the
  // reporter then stops for good, so a user's window does not walk its
  // screen after every change for nobody.
  send: (s: ViewSnapshot) => Promise<boolean | void>,
  delayMs = 100,
  timers: { set: (f: () => void, ms: number) => unknown; clear: (t: unknown) => void } = {
    // Wrapped: a browser's setTimeout called as a method of another object throws "Illegal invocation".
    set: (f, ms) => setTimeout(f, ms),
    clear: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  },
) {
  let timer: unknown = null;
  let last = '';
  let stopped = false;
  const flush = () => {
    timer = null;
    if (stopped) return;
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
      send(snap).then(
        (probing) => {
          if (probing === false) stopped = true;
        },
        () => {},
      );
    } catch {
      /* swallowed */
    }
  };
  return {
    schedule() {
      if (stopped) return;
      if (timer !== null) timers.clear(timer);
      timer = timers.set(flush, delayMs);
    },
    cancel() {
      if (timer !== null) timers.clear(timer);
      timer = null;
    },
    /** Whether the host said no probe is set, so nothing more is reported. */
    get stopped() {
      return stopped;
    },
  };
}
