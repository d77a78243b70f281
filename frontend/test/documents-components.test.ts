// @vitest-environment jsdom
// The documents components mounted in jsdom over a real DocumentsStore and
// a transport whose answers the test gives.
import { flushSync, mount, unmount, type Component } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import CitationList from '../src/components/CitationList.svelte';
import DocumentsPanel from '../src/components/DocumentsPanel.svelte';
import IndexingBar from '../src/components/IndexingBar.svelte';
import Message from '../src/components/Message.svelte';
import SourceViewer from '../src/components/SourceViewer.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';
import { foldAll } from '../src/lib/conversation';
import { DOCUMENTS_CONTEXT, DocumentsStore } from '../src/lib/documents.svelte';
import type { EventPayloads, EventTypeName, Citation, DocumentInfo, DocumentsState, IndexProgress, QEvent } from '../src/lib/protocol';
import { event } from './events';
import type { Transport } from '../src/lib/transport/transport';

const ROOT = '/home/ann/papers';
const GARDEN = ['# Garden', '', 'Tomatoes need sun.', '', '## Water', '', 'Water the basil every morning.', 'Never let the pots dry out.'].join('\n');

function progress(over: Partial<IndexProgress> = {}): IndexProgress {
  return { running: false, phase: 'idle', total: 0, done: 0, failed: 0, refused: 0, etaMs: 0, queued: 0, ...over };
}
function doc(name: string, status: DocumentInfo['status'], reason = ''): DocumentInfo {
  return { path: `${ROOT}/${name}`, name: `papers/${name}`, root: ROOT, status, reason, chunks: 2, size: 10, updated: '2026-11-30T10:00:00Z' };
}
const hit: Citation = {
  n: 1,
  path: `${ROOT}/garden.md`,
  name: 'papers/garden.md',
  headings: ['Garden', 'Water'],
  startLine: 7,
  endLine: 8,
  snippet: 'Water the basil every morning.',
  score: 0.03,
  lexicalRank: 1,
  vectorRank: 1,
  matched: ['basil', 'water'],
  similarity: 0.71,
};

function host(over: Partial<Transport> = {}, state: Partial<DocumentsState> = {}) {
  const st: DocumentsState = {
    embedder: 'built-in offline embedder (hashvec)',
    offline: true,
    roots: [ROOT],
    documents: [doc('garden.md', 'done'), doc('photo.txt', 'failed', 'binary content: the file looks like image/png, not text')],
    progress: progress(),
    ...state,
  };
  return {
    takesFileDrops: false,
    documents: vi.fn(async () => st),
    indexPaths: vi.fn(async () => {}),
    cancelIndexing: vi.fn(async () => {}),
    retryDocument: vi.fn(async () => {}),
    removeDocument: vi.fn(async () => {}),
    documentSource: vi.fn(async (path: string) => {
      if (path !== `${ROOT}/garden.md`) throw new Error(`${path}: this file is not in the document index; drop it on the window to add it`);
      return { path, name: 'papers/garden.md', format: 'markdown', text: GARDEN };
    }),
    subscribeIndexing: vi.fn(() => () => {}),
    ...over,
  } as unknown as Transport;
}

const mounted: ReturnType<typeof mount>[] = [];
function render<P extends Record<string, any>>(component: Component<P>, props: P, docs?: DocumentsStore) {
  const target = document.createElement('div');
  document.body.appendChild(target);
  const context = docs ? new Map<unknown, unknown>([[DOCUMENTS_CONTEXT, docs]]) : undefined;
  mounted.push(mount(component, { target, props, context }) as ReturnType<typeof mount>);
  flushSync();
  return target;
}
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
});

const q = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const settle = async () => {
  await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

describe('IndexingBar', () => {
  it('counts while running, Stop cancels, and a finished bar can be closed', async () => {
    const t = host();
    const docs = new DocumentsStore(t);
    const el = render(IndexingBar, { docs });
    expect(q(el, 'indexing-bar')).toBeNull(); // idle: nothing to show
    docs.onProgress(progress({ running: true, phase: 'indexing', total: 4, done: 1, currentFile: `${ROOT}/soil.txt`, etaMs: 5000 }));
    flushSync();
    expect(q(el, 'indexing-label')?.textContent).toBe('Indexing 1 of 4 files');
    expect(q(el, 'indexing-detail')?.textContent).toBe('soil.txt · about 5 s left');
    expect(el.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')).toBe('25');
    q(el, 'indexing-cancel')!.click();
    expect(t.cancelIndexing).toHaveBeenCalledTimes(1);
    docs.onProgress(progress({ phase: 'cancelled', total: 4, done: 1 }));
    flushSync();
    expect(q(el, 'indexing-label')?.textContent).toBe('Indexing stopped');
    q(el, 'indexing-close')!.click();
    flushSync();
    expect(q(el, 'indexing-bar')).toBeNull();
    // The next pass shows the bar again.
    docs.onProgress(progress({ running: true, phase: 'scanning' }));
    flushSync();
    expect(q(el, 'indexing-label')?.textContent).toBe('Looking for new and changed files…');
  });
});

describe('DocumentsPanel', () => {
  it('lists documents with status and reason; Retry only on failures; Remove asks first', async () => {
    const t = host();
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    const rows = [...el.querySelectorAll('[data-testid="doc-item"]')];
    expect(rows.map((r) => [q(r, 'doc-name')?.textContent, q(r, 'doc-status')?.textContent])).toEqual([
      ['papers/garden.md', 'Ready'],
      ['papers/photo.txt', 'Failed'],
    ]);
    expect(q(rows[1], 'doc-reason')?.textContent).toBe('binary content: the file looks like image/png, not text');
    expect(q(rows[0], 'doc-retry')).toBeNull();
    expect(q(el, 'documents-counts')?.textContent).toBe('2 documents · 1 failed');
    expect(q(el, 'documents-embedder')?.textContent).toContain('built-in offline embedder');

    q(rows[1], 'doc-retry')!.click();
    expect(t.retryDocument).toHaveBeenCalledWith(`${ROOT}/photo.txt`);
    q(rows[0], 'doc-remove')!.click();
    flushSync();
    expect(t.removeDocument).not.toHaveBeenCalled(); // the dialog asks first
    expect(document.querySelector('[data-testid="confirm-dialog"]')?.textContent).toContain('Remove papers/garden.md from Quire?');
    document.querySelector<HTMLElement>('[data-testid="confirm-delete"]')!.click();
    await settle();
    expect(t.removeDocument).toHaveBeenCalledWith(`${ROOT}/garden.md`);
  });

  it('adds a typed path, and shows Go\'s sentence when it cannot', async () => {
    const t = host({
      indexPaths: vi.fn(async (paths: string[]) => {
        if (!paths[0].startsWith('/')) throw new Error(`"${paths[0]}": give the full path, like /home/you/Documents`);
      }),
    });
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    expect(el.querySelector('.hint')?.textContent).toContain('Type the full path');
    const input = q(el, 'documents-input') as HTMLInputElement;
    const submit = () => {
      input.dispatchEvent(new Event('input', { bubbles: true }));
      flushSync();
      q(el, 'documents-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    };
    input.value = 'papers';
    submit();
    await settle();
    expect(q(el, 'documents-error')?.textContent).toContain('give the full path');
    expect(input.value).toBe('papers'); // kept, to fix
    input.value = ROOT;
    submit();
    await settle();
    expect(t.indexPaths).toHaveBeenLastCalledWith([ROOT]);
    expect(q(el, 'documents-error')).toBeNull();
    expect(input.value).toBe('');
  });

  it('in the window it says to drop, and shows a vector error', async () => {
    const docs = new DocumentsStore(host({ takesFileDrops: true } as Partial<Transport>, { vectorError: 'embed the query with ollama:nomic: connection refused' }));
    const el = render(DocumentsPanel, { docs });
    await settle();
    expect(el.querySelector('.hint')?.textContent).toContain('Drop files or folders anywhere on this window');
    expect(q(el, 'documents-vector-error')?.textContent).toContain('connection refused');
  });
});

describe('citations to the source viewer', () => {
  it('a passage of the search_docs card opens the viewer with the cited lines marked', async () => {
    const t = host();
    const docs = new DocumentsStore(t);
    const el = render(CitationList, { hits: [hit] }, docs);
    render(SourceViewer, { docs });
    expect(q(el, 'citation')?.textContent?.replace(/\s+/g, ' ').trim()).toBe('[1] papers/garden.md › Garden › Water · lines 7–8');
    expect(q(el, 'citation-why')?.textContent).toBe('matched: basil, water · meaning 0.71 · keyword rank 1 · meaning rank 1');
    q(el, 'citation')!.click();
    await settle();
    expect(t.documentSource).toHaveBeenCalledWith(`${ROOT}/garden.md`, 0);
    const viewer = q(document, 'source-viewer')!;
    expect(q(viewer, 'source-name')?.textContent).toBe('papers/garden.md');
    expect(q(viewer, 'source-where')?.textContent).toBe('lines 7–8');
    expect([...viewer.querySelectorAll('[data-testid="source-marked"] .txt')].map((e) => e.textContent)).toEqual([
      'Water the basil every morning.',
      'Never let the pots dry out.',
    ]);
    q(viewer, 'source-close')!.click();
    flushSync();
    expect(q(document, 'source-viewer')).toBeNull();
  });

  it('[1] in a reply is a link to the passage; a refused source shows the sentence, no text', async () => {
    const ev = <T extends EventTypeName>(seq: number, type: T, payload: Partial<EventPayloads[T]>): QEvent => event('s', seq, type, payload, 'r');
    const conv = foldAll('s', [
      ev(0, 'session.created', { title: 'Docs' }),
      ev(1, 'run.started', {}),
      ev(2, 'assistant.message', { content: '', toolCalls: [{ id: 'c1', name: 'search_docs', arguments: '{}' }] }),
      ev(3, 'tool.result', { callId: 'c1', status: 'success', content: '[1] …', data: { query: 'q', embedder: 'x', hits: [hit, { ...hit, n: 2, path: '/etc/passwd' }] } }),
      ev(4, 'assistant.message', { content: 'Water it every morning [1], not [2].' }),
      ev(5, 'run.finished', { reason: 'completed' }),
    ]);
    const t = host();
    const docs = new DocumentsStore(t);
    const chat = { conv, undone: new Set<string>() } as unknown as ChatStore;
    const item = conv.items.find((i) => i.text.startsWith('Water it'))!;
    const el = render(Message, { item, chat }, docs);
    render(SourceViewer, { docs });
    const links = [...el.querySelectorAll<HTMLElement>('[data-testid="citation-link"]')];
    expect(links.map((a) => a.textContent)).toEqual(['[1]', '[2]']);
    links[0].click();
    await settle();
    expect([...document.querySelectorAll('[data-testid="source-marked"]')].length).toBe(2);
    links[1].click();
    await settle();
    expect(q(document, 'source-error')?.textContent).toContain('not in the document index');
    expect(document.querySelectorAll('[data-testid="source-marked"]').length).toBe(0);
  });
});
