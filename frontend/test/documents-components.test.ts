// @vitest-environment jsdom
// The documents components mounted in jsdom over a real DocumentsStore and
// a transport whose answers the test gives.
import { flushSync, mount, unmount, type Component } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import CitationList from '../src/components/CitationList.svelte';
import DocumentsButton from '../src/components/DocumentsButton.svelte';
import DocumentsPanel from '../src/components/DocumentsPanel.svelte';
import IndexingBar from '../src/components/IndexingBar.svelte';
import Message from '../src/components/Message.svelte';
import SourceViewer from '../src/components/SourceViewer.svelte';
import type { ChatStore } from '../src/lib/chat.svelte';
import { foldAll } from '../src/lib/conversation';
import { DOCUMENTS_CONTEXT, DocumentsStore } from '../src/lib/documents.svelte';
import type { EventPayloads, EventTypeName, Citation, DocumentInfo, DocumentsState, EmbeddingState, IndexProgress, ModelsState, PullProgress, QEvent } from '../src/lib/protocol';
import { event } from './events';
import type { Transport } from '../src/lib/transport/transport';

const ROOT = '/home/ann/papers';
const GARDEN = ['# Garden', '', 'Tomatoes need sun.', '', '## Water', '', 'Water the basil every morning.', 'Never let the pots dry out.'].join('\n');

function progress(over: Partial<IndexProgress> = {}): IndexProgress {
  return { running: false, phase: 'idle', total: 0, done: 0, failed: 0, refused: 0, skipped: 0, etaMs: 0, queued: 0, ...over };
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
    // The failed document first (issue 31: buried in the alphabet).
    expect(rows.map((r) => [q(r, 'doc-name')?.textContent, q(r, 'doc-status')?.textContent])).toEqual([
      ['papers/photo.txt', 'Failed'],
      ['papers/garden.md', 'Ready'],
    ]);
    expect(q(rows[0], 'doc-reason')?.textContent).toBe('binary content: the file looks like image/png, not text');
    expect(q(rows[1], 'doc-retry')).toBeNull();
    expect(q(el, 'documents-counts')?.textContent).toBe('2 documents · 1 failed');
    expect(q(el, 'documents-embedder')?.textContent).toContain('built-in offline embedder');

    q(rows[0], 'doc-retry')!.click();
    expect(t.retryDocument).toHaveBeenCalledWith(`${ROOT}/photo.txt`);
    q(rows[1], 'doc-remove')!.click();
    flushSync();
    expect(t.removeDocument).not.toHaveBeenCalled(); // the dialog asks first
    expect(document.querySelector('[data-testid="confirm-dialog"]')?.textContent).toContain('Remove papers/garden.md from Quire?');
    document.querySelector<HTMLElement>('[data-testid="confirm-delete"]')!.click();
    await settle();
    expect(t.removeDocument).toHaveBeenCalledWith(`${ROOT}/garden.md`);
  });

  it('lists skipped files apart, in a collapsed group with the reason, never as failures', async () => {
    const t = host({}, {
      documents: [
        doc('garden.md', 'done'),
        doc('config.yml', 'skipped', 'Quire does not read .yml files'),
        doc('photo.txt', 'failed', 'binary content'),
        doc('data.json', 'skipped', 'Quire does not read .json files'),
      ],
    });
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    const rows = [...el.querySelectorAll('[data-testid="doc-item"]')];
    expect(rows.map((r) => q(r, 'doc-name')?.textContent)).toEqual(['papers/photo.txt', 'papers/garden.md']);
    const group = q(el, 'documents-skipped') as HTMLDetailsElement;
    expect(group.open).toBe(false);
    expect(q(group, 'documents-skipped-summary')?.textContent).toContain('Skipped (2)');
    const skipped = [...group.querySelectorAll('[data-testid="doc-skipped"]')];
    expect(skipped.map((r) => [q(r, 'doc-name')?.textContent, q(r, 'doc-reason')?.textContent])).toEqual([
      ['papers/config.yml', 'Quire does not read .yml files'],
      ['papers/data.json', 'Quire does not read .json files'],
    ]);
    expect(group.querySelector('[data-testid="doc-retry"]')).toBeNull();
    expect(q(el, 'documents-counts')?.textContent).toBe('2 documents · 1 failed · 2 skipped');
  });

  it('the Documents button counts documents, not skipped files', async () => {
    const docs = new DocumentsStore(host({}, { documents: [doc('garden.md', 'done'), doc('config.yml', 'skipped', 'Quire does not read .yml files')] }));
    const el = render(DocumentsButton, { docs });
    await docs.load();
    flushSync();
    expect(q(el, 'documents-count')?.textContent).toBe('1');
  });

  it('shows no skipped group when nothing was skipped', async () => {
    const el = render(DocumentsPanel, { docs: new DocumentsStore(host()) });
    await settle();
    expect(q(el, 'documents-skipped')).toBeNull();
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

describe('DocumentsPanel embedding model', () => {
  const models = (over: Partial<ModelsState> = {}): ModelsState => ({
    installed: [
      { name: 'qwen3:4b', size: 2.5e9, capabilities: ['completion', 'tools'], contextLength: 40960, loaded: false, modifiedMs: 0 },
      { name: 'all-minilm:latest', size: 46e6, capabilities: ['embedding'], contextLength: 512, loaded: false, modifiedMs: 0 },
    ],
    recommended: [
      { name: 'qwen3:4b', role: 'chat', summary: '', downloadSize: 2.5e9, installed: true },
      { name: 'nomic-embed-text', role: 'embedding', summary: '', downloadSize: 274e6, installed: false },
    ],
    pulls: [],
    ...over,
  });
  const missing: EmbeddingState = {
    model: 'nomic-embed-text',
    status: 'missing',
    problem: 'The embedding model nomic-embed-text is not installed, so search uses keywords and the vectors it has. Pull it (ollama pull nomic-embed-text, or Pull below), or choose another model here.',
    inUse: 'built-in offline embedder (hashvec)',
    dimensions: 256,
  };
  function embedHost(embedding: EmbeddingState, ms = models()) {
    let onPull: (p: PullProgress) => void = () => {};
    const t = host(
      {
        models: vi.fn(async () => ms),
        subscribePulls: vi.fn((f: (p: PullProgress) => void) => ((onPull = f), () => {})),
        pullModel: vi.fn(async () => {}),
        setEmbedModel: vi.fn(async (m: string) => {
          if (m === 'qwen3:4b') throw new Error('qwen3:4b is not an embedding model, so search uses keywords and the vectors it has.');
        }),
      } as Partial<Transport>,
      { embedding },
    );
    return { t, pull: (p: PullProgress) => onPull(p) };
  }

  it('says what is wrong with the chosen model, offers the installed embedding models and uses the one picked', async () => {
    const { t } = embedHost(missing);
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    expect(q(el, 'embedding-problem')?.textContent).toContain('nomic-embed-text is not installed');
    expect(q(el, 'documents-embedder')?.textContent).toBe('Meaning search: the built-in offline embedder (nomic-embed-text is not in use yet)');
    const select = q(el, 'embedding-select') as HTMLSelectElement;
    // None, the installed embedding model (not the chat model), and the chosen one though missing.
    expect([...select.options].map((o) => o.textContent)).toEqual(['None: search by keywords only', 'all-minilm:latest (46 MB)', 'nomic-embed-text (not installed)']);
    expect(select.value).toBe('nomic-embed-text');
    const use = q(el, 'embedding-use') as HTMLButtonElement;
    expect(use.disabled).toBe(true); // nothing new picked
    select.value = 'all-minilm';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    expect(use.disabled).toBe(false);
    use.click();
    await settle();
    expect(t.setEmbedModel).toHaveBeenCalledWith('all-minilm'); // Ollama's short name for all-minilm:latest
    expect(q(el, 'documents-error')).toBeNull();
  });

  it('pulls the recommended model with its size and shows the download, and says a switch under way', async () => {
    const { t, pull } = embedHost({ ...missing, status: 'ready', problem: undefined, target: 'ollama:all-minilm', model: 'all-minilm' });
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    expect(q(el, 'embedding-problem')).toBeNull();
    expect(q(el, 'embedding-switching')?.textContent).toBe('Embedding the documents with all-minilm; search uses built-in offline embedder (hashvec) until that is done.');
    const btn = q(el, 'embedding-pull') as HTMLButtonElement;
    expect(btn.textContent).toBe('Pull nomic-embed-text (274 MB download)');
    btn.click();
    await settle();
    expect(t.pullModel).toHaveBeenCalledWith('nomic-embed-text');
    pull({ model: 'nomic-embed-text', state: 'running', status: 'pulling', completed: 137e6, total: 274e6, atMs: 0, startedMs: 0 });
    flushSync();
    expect(q(el, 'embedding-pull-progress')?.textContent).toBe('Downloading 50% (137 MB of 274 MB)');
    expect((q(el, 'embedding-pull') as HTMLButtonElement).disabled).toBe(true);
  });

  it('the chosen model, missing, is used as soon as its pull is done', async () => {
    const { t, pull } = embedHost(missing);
    const docs = new DocumentsStore(t);
    render(DocumentsPanel, { docs });
    await settle();
    pull({ model: 'other-model', state: 'done', status: 'success', completed: 1, total: 1, atMs: 0, startedMs: 0 });
    pull({ model: 'nomic-embed-text', state: 'failed', status: '', completed: 0, total: 0, atMs: 0, startedMs: 0, error: 'offline' });
    await settle();
    expect(t.setEmbedModel).not.toHaveBeenCalled();
    pull({ model: 'nomic-embed-text:latest', state: 'done', status: 'success', completed: 274e6, total: 274e6, atMs: 0, startedMs: 0 });
    await settle();
    expect(t.setEmbedModel).toHaveBeenCalledWith('nomic-embed-text');
  });

  it('shows the sentence of a model that cannot embed', async () => {
    const { t } = embedHost(missing);
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    await docs.chooseEmbedModel('qwen3:4b');
    flushSync();
    expect(q(el, 'documents-error')?.textContent).toContain('qwen3:4b is not an embedding model');
  });

  it('the chosen model is the installed one Ollama lists with :latest', async () => {
    const { t } = embedHost({ ...missing, model: 'all-minilm', status: 'ready', problem: undefined, inUse: 'ollama:all-minilm', dimensions: 384 });
    const docs = new DocumentsStore(t);
    const el = render(DocumentsPanel, { docs });
    await settle();
    const select = q(el, 'embedding-select') as HTMLSelectElement;
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ['', 'None: search by keywords only'],
      ['all-minilm', 'all-minilm:latest (46 MB)'],
    ]);
    expect(select.value).toBe('all-minilm');
  });

  it('a host without the embedding section shows none', async () => {
    const docs = new DocumentsStore(host());
    const el = render(DocumentsPanel, { docs });
    await settle();
    expect(q(el, 'documents-embedding')).toBeNull();
    expect(q(el, 'documents-embedder')?.textContent).toContain('no embedding model chosen');
  });
});
