// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { citationsFor, searchDocsHits, whyLabel } from '../src/lib/citations';
import { foldAll, type CallState } from '../src/lib/conversation';
import {
  citationTarget,
  countsLabel,
  splitSkipped,
  docStatusView,
  embedderLabel,
  etaLabel,
  linesLabel,
  progressView,
  sourceLines,
  statusView,
} from '../src/lib/documents';
import { DocumentsStore, RELOAD_MS } from '../src/lib/documents.svelte';
import { renderMarkdown } from '../src/lib/markdown';
import type { EventPayloads, EventTypeName, Citation, DocumentInfo, DocumentsState, IndexProgress, QEvent } from '../src/lib/protocol';
import { event } from './events';
import { buildSnapshot } from '../src/lib/snapshot';
import type { Transport } from '../src/lib/transport/transport';

function progress(over: Partial<IndexProgress> = {}): IndexProgress {
  return { running: false, phase: 'idle', total: 0, done: 0, failed: 0, refused: 0, skipped: 0, etaMs: 0, queued: 0, ...over };
}

function doc(name: string, status: DocumentInfo['status'], reason = ''): DocumentInfo {
  return { path: `/home/ann/${name}`, name, root: '/home/ann', status, reason, chunks: 2, size: 10, updated: '2026-11-30T10:00:00Z' };
}

const hit = (n: number, over: Partial<Citation> = {}): Citation => ({
  n,
  path: `/home/ann/papers/p${n}.md`,
  name: `papers/p${n}.md`,
  headings: ['Goals', 'Budget'],
  startLine: 12,
  endLine: 30,
  snippet: 'the budget',
  score: 0.03,
  lexicalRank: 1,
  vectorRank: 2,
  ...over,
});

describe('progressView', () => {
  const cases: [string, IndexProgress, Partial<ReturnType<typeof progressView>>][] = [
    ['idle shows nothing', progress(), { show: false }],
    ['scanning has no percent yet', progress({ running: true, phase: 'scanning' }), { show: true, percent: null, label: 'Looking for new and changed files…' }],
    [
      'indexing counts, names the file and the time left',
      progress({ running: true, phase: 'indexing', total: 10, done: 3, currentFile: '/home/ann/papers/plan.md', etaMs: 125_000 }),
      { show: true, running: true, percent: 30, label: 'Indexing 3 of 10 files', detail: 'plan.md · about 2 min left' },
    ],
    [
      'a failure while running is counted',
      progress({ running: true, phase: 'indexing', total: 4, done: 2, failed: 1 }),
      { percent: 50, detail: ' · 1 could not be read' },
    ],
    ['done', progress({ phase: 'done', total: 1, done: 1 }), { show: true, running: false, percent: 100, label: 'Indexed 1 file', tone: 'ok' }],
    [
      'done with failures warns',
      progress({ phase: 'done', total: 5, done: 5, failed: 2 }),
      { label: 'Indexed 5 files', detail: '2 files could not be read; see the documents panel', tone: 'warn' },
    ],
    ['a refresh with nothing to do shows nothing', progress({ phase: 'done' }), { show: false }],
    ['a drop with nothing new says so', progress({ phase: 'done', paths: ['/home/ann/papers'] }), { show: true, label: 'Nothing new to index', tone: 'ok' }],
    [
      'a dropped link out of its folder is said',
      progress({ phase: 'done', refused: 1, paths: ['/home/ann/key'] }),
      { show: true, label: 'Nothing could be indexed', detail: '1 file could not be read; see the documents panel', tone: 'warn' },
    ],
    [
      'a dropped file in a format Quire does not read is said as skipped, not as a failure',
      progress({ phase: 'done', skipped: 1, paths: ['/home/ann/photo.png'] }),
      { show: true, label: 'Nothing to index', detail: '1 file skipped (not a format Quire reads)', tone: 'ok' },
    ],
    [
      'skipped files are said apart from the failures',
      progress({ phase: 'done', total: 3, done: 3, failed: 1, skipped: 2 }),
      { label: 'Indexed 3 files', detail: '1 file could not be read; see the documents panel · 2 files skipped (not a format Quire reads)', tone: 'warn' },
    ],
    [
      'refused files add to the failures',
      progress({ phase: 'done', total: 2, done: 2, failed: 1, refused: 2 }),
      { label: 'Indexed 2 files', detail: '3 files could not be read; see the documents panel' },
    ],
    [
      'cancelled keeps the count',
      progress({ phase: 'cancelled', total: 8, done: 3 }),
      { label: 'Indexing stopped', detail: '3 of 8 files done; the rest is picked up next time', percent: 38, tone: 'warn' },
    ],
    ['failed says why', progress({ phase: 'failed', error: 'the disk is full' }), { label: 'Indexing stopped on an error', detail: 'the disk is full', tone: 'danger' }],
    ['done beyond total is clamped', progress({ running: true, phase: 'indexing', total: 2, done: 5 }), { percent: 100 }],
  ];
  for (const [name, p, want] of cases) {
    it(name, () => expect(progressView(p)).toMatchObject(want));
  }
  it('null shows nothing', () => expect(progressView(null).show).toBe(false));

  it('a switch of embedding model counts documents and says the old vectors are used meanwhile', () => {
    const cases: [Partial<IndexProgress>, string, string][] = [
      [{ running: true, phase: 'indexing', total: 4, done: 1, currentFile: '/n/a.md' }, 'Embedding 1 of 4 documents with nomic-embed-text', 'a.md · search uses the old vectors until this is done'],
      [{ phase: 'done', total: 1, done: 1 }, 'Search now uses nomic-embed-text', '1 document embedded'],
      [{ phase: 'failed', total: 4, done: 2, error: 'Ollama stopped' }, 'Embedding with nomic-embed-text stopped on an error', 'Ollama stopped'],
      [{ phase: 'cancelled', total: 4, done: 2 }, 'Embedding with nomic-embed-text stopped', 'Search uses the old vectors; it goes on at the next start'],
    ];
    for (const [over, label, detail] of cases) {
      const v = progressView(progress({ reembedding: 'ollama:nomic-embed-text', ...over }));
      expect([v.show, v.label, v.detail]).toEqual([true, label, detail]);
    }
  });
});

describe('labels', () => {
  it.each([
    [0, ''],
    [400, ''],
    [40_000, 'about 40 s left'],
    [90_000, 'about 2 min left'],
    [7_200_000, 'about 2 h left'],
    [Number.NaN, ''],
  ])('etaLabel(%s) = %j', (ms, want) => expect(etaLabel(ms)).toBe(want));

  it('statusView names every status and tolerates unknown ones', () => {
    expect(statusView('done')).toEqual({ label: 'Ready', tone: 'ok' });
    expect(statusView('failed')).toEqual({ label: 'Failed', tone: 'danger' });
    expect(statusView('parsed').label).toBe('Searchable by words');
    expect(statusView('queued').label).toBe('Queued');
    expect(statusView('weird')).toEqual({ label: 'weird', tone: 'neutral' });
  });

  it('embedderLabel says which embedder is active', () => {
    expect(embedderLabel({ embedder: 'built-in offline embedder (hashvec)', offline: true })).toContain('built-in offline embedder');
    expect(embedderLabel({ embedder: 'ollama:nomic-embed-text', offline: false })).toBe('Meaning search: Ollama model nomic-embed-text');
    expect(embedderLabel(null)).toBe('');
  });

  // Issue 31: failures were buried in an alphabetical list of 254, and a
  // PDF with no text read "Ready · 0 passages".
  it('lists the failed documents first, and says a document with no text has none', () => {
    const docs = [doc('a.md', 'done'), doc('b.pdf', 'failed', 'not a PDF'), doc('c.yml', 'skipped'), doc('d.md', 'done'), doc('e.txt', 'failed', 'binary')];
    expect(splitSkipped(docs).listed.map((d) => d.name)).toEqual(['b.pdf', 'e.txt', 'a.md', 'd.md']);
    expect(docStatusView({ ...doc('scan.pdf', 'done'), chunks: 0 })).toEqual({ label: 'No text', tone: 'warn' });
    expect(docStatusView(doc('a.md', 'done'))).toEqual({ label: 'Ready', tone: 'ok' });
  });

  it('countsLabel counts failures, and skipped files apart from the documents', () => {
    expect(countsLabel([doc('a.md', 'done'), doc('b.bin', 'failed')])).toBe('2 documents · 1 failed');
    expect(countsLabel([doc('a.md', 'done')])).toBe('1 document');
    expect(countsLabel([doc('a.md', 'done'), doc('c.yml', 'skipped'), doc('d.json', 'skipped')])).toBe('1 document · 2 skipped');
    expect(countsLabel([doc('a.md', 'done'), doc('b.bin', 'failed'), doc('c.yml', 'skipped')])).toBe('2 documents · 1 failed · 1 skipped');
  });

  it('statusView says skipped calmly', () => {
    expect(statusView('skipped')).toEqual({ label: 'Skipped', tone: 'neutral' });
  });

  it('linesLabel', () => {
    expect(linesLabel(12, 30)).toBe('lines 12–30');
    expect(linesLabel(4, 4)).toBe('line 4');
    expect(linesLabel(0, 0)).toBe('');
  });
});

describe('citation targets and source lines', () => {
  it('a PDF citation opens its page', () => {
    expect(citationTarget(hit(1, { headings: ['Page 3'], startLine: 2, endLine: 5 }))).toEqual({
      path: '/home/ann/papers/p1.md',
      name: 'papers/p1.md',
      page: 3,
      start: 2,
      end: 5,
    });
    expect(citationTarget(hit(2)).page).toBe(0);
    expect(citationTarget(hit(2, { startLine: 9, endLine: 0 }))).toMatchObject({ start: 9, end: 9 });
  });

  it('sourceLines marks the cited range only', () => {
    const lines = sourceLines('a\r\nb\nc\nd\n', 2, 3);
    expect(lines.map((l) => [l.n, l.text, l.marked])).toEqual([
      [1, 'a', false],
      [2, 'b', true],
      [3, 'c', true],
      [4, 'd', false],
    ]);
    expect(sourceLines('x\ny', 0, 0).some((l) => l.marked)).toBe(false);
  });
});

// A search_docs step, then an answer citing [1] and [3]; the citable numbers
// are the hits of the search before the answer.
function citedConversation(hits: unknown) {
  const ev = <T extends EventTypeName>(seq: number, type: T, payload: Partial<EventPayloads[T]>): QEvent => event('s', seq, type, payload, 'r1');
  return foldAll('s', [
    ev(0, 'session.created', { title: 'Docs' }),
    ev(1, 'run.started', {}),
    ev(2, 'assistant.message', { content: '', toolCalls: [{ id: 'c1', name: 'search_docs', arguments: '{"query":"budget"}' }] }),
    ev(3, 'tool.result', { callId: 'c1', status: 'success', content: '[1] …', data: { query: 'budget', embedder: 'x', hits } }),
    ev(4, 'assistant.message', { content: 'The budget is set [1]; see also [3] and [2].' }),
    ev(5, 'run.finished', { reason: 'completed' }),
  ]);
}

describe('citations', () => {
  it('searchDocsHits reads search_docs data and ignores anything else', () => {
    const call: CallState = { id: 'c', name: 'search_docs', arguments: '{}', phase: 'finished', data: { hits: [hit(1), { n: 'x' }, hit(2)] } };
    expect(searchDocsHits(call)?.map((h) => h.n)).toEqual([1, 2]);
    expect(searchDocsHits({ ...call, name: 'read_note' })).toBeNull();
    expect(searchDocsHits({ ...call, phase: 'running' })).toBeNull();
    expect(searchDocsHits({ ...call, data: 'text' })).toBeNull();
  });

  it('searchDocsHits keeps why a passage was found, and whyLabel says it compactly', () => {
    const data = { hits: [{ ...hit(1), matched: ['zeppelin', 7, 'budget'], similarity: 0.714, lexicalRank: 2, vectorRank: 0 }] };
    const call: CallState = { id: 'c', name: 'search_docs', arguments: '{}', phase: 'finished', data };
    const [c] = searchDocsHits(call)!;
    expect(c.matched).toEqual(['zeppelin', 'budget']);
    expect(whyLabel(c)).toBe('matched: zeppelin, budget · meaning 0.71 · keyword rank 2');
    // The built-in embedder: no similarity; a passage only the vector search found: no words.
    expect(whyLabel({ ...c, similarity: 0 })).toBe('matched: zeppelin, budget · keyword rank 2');
    expect(whyLabel({ ...c, matched: [], similarity: 0.8, lexicalRank: 0, vectorRank: 3 })).toBe('meaning 0.80 · meaning rank 3');
    expect(whyLabel({ ...c, matched: undefined, similarity: undefined, lexicalRank: 0, vectorRank: 0 })).toBe('');
  });

  it('an answer may cite the passages of the search before it', () => {
    const conv = citedConversation([hit(1), hit(2)]);
    const answer = conv.items.find((i) => i.text.includes('budget is set'))!;
    const cites = citationsFor(conv, answer);
    expect([...cites.keys()]).toEqual([1, 2]);
    const html = renderMarkdown(answer.text, new Set(cites.keys()));
    const div = document.createElement('div');
    div.innerHTML = html;
    // [1] and [2] are links; [3] was never returned, so it stays text.
    expect(Array.from(div.querySelectorAll('[data-testid="citation-link"]'), (a) => a.getAttribute('data-cite'))).toEqual(['1', '2']);
    expect(div.textContent?.trim()).toBe('The budget is set [1]; see also [3] and [2].');
    expect(div.querySelector('a.cite')?.hasAttribute('href')).toBe(false);
  });

  it('without a search before it, nothing is a link', () => {
    const conv = citedConversation([hit(1)]);
    const first = conv.items[0];
    expect(citationsFor(conv, first).size).toBe(0);
    expect(renderMarkdown('plain [1] and [2](http://x)')).not.toContain('data-cite');
  });
});

/** A transport whose documents methods the test drives. */
function fakeTransport(over: Partial<Transport> = {}) {
  let push: (p: IndexProgress) => void = () => {};
  let dropError: (s: string) => void = () => {};
  const state: DocumentsState = { embedder: 'offline', offline: true, roots: [], documents: [doc('a.md', 'done')], progress: progress() };
  const t = {
    takesFileDrops: true,
    documents: vi.fn(async () => state),
    indexPaths: vi.fn(async () => {}),
    cancelIndexing: vi.fn(async () => {}),
    retryDocument: vi.fn(async () => {}),
    removeDocument: vi.fn(async () => {}),
    documentSource: vi.fn(async (path: string) => ({ path, name: 'papers/p1.md', format: 'markdown', text: 'a\nb\nc' })),
    subscribeIndexing: vi.fn((p: (p: IndexProgress) => void, d?: (s: string) => void) => {
      push = p;
      dropError = d ?? (() => {});
      return () => {};
    }),
    ...over,
  } as unknown as Transport;
  return { t, push: (p: IndexProgress) => push(p), dropError: (s: string) => dropError(s), state };
}

describe('DocumentsStore', () => {
  it('loads at start, follows progress and reloads the list when a pass ends', async () => {
    let now = 0;
    const f = fakeTransport();
    const s = new DocumentsStore(f.t, () => now);
    s.start();
    await vi.waitFor(() => expect(s.state?.documents).toHaveLength(1));
    expect(f.t.documents).toHaveBeenCalledTimes(1);
    f.push(progress({ running: true, phase: 'indexing', total: 10, done: 1 }));
    expect(s.progress?.done).toBe(1);
    expect(f.t.documents).toHaveBeenCalledTimes(1); // too soon after the last load
    now += RELOAD_MS;
    f.push(progress({ running: true, phase: 'indexing', total: 10, done: 5 }));
    expect(f.t.documents).toHaveBeenCalledTimes(2);
    f.push(progress({ phase: 'done', total: 10, done: 10 }));
    expect(f.t.documents).toHaveBeenCalledTimes(3);
  });

  it('a drop that could not be queued is shown', () => {
    const f = fakeTransport();
    const s = new DocumentsStore(f.t);
    s.start();
    f.dropError('there is no such file or folder; check the path');
    expect(s.error).toContain('no such file');
  });

  it('add, retry and remove report the host sentence and keep nothing pending', async () => {
    const f = fakeTransport({
      indexPaths: vi.fn(async () => {
        throw new Error('give the full path, like /home/you/Documents');
      }),
      removeDocument: vi.fn(async () => {
        throw new Error('this file is not in the document index');
      }),
    });
    const s = new DocumentsStore(f.t);
    expect(await s.add(['papers'])).toBe('give the full path, like /home/you/Documents');
    expect(s.adding).toBe(false);
    await s.remove('/etc/passwd');
    expect(s.error).toBe('this file is not in the document index');
    expect(s.pending.size).toBe(0);
    await s.retry('/home/ann/a.md');
    expect(f.t.retryDocument).toHaveBeenCalledWith('/home/ann/a.md');
    expect(s.error).toBeNull();
  });

  it('a citation opens the viewer at its lines; a refusal is shown, not text', async () => {
    const f = fakeTransport();
    const s = new DocumentsStore(f.t);
    await s.openCitation(hit(1, { headings: ['Page 2'], startLine: 2, endLine: 3 }));
    expect(f.t.documentSource).toHaveBeenCalledWith('/home/ann/papers/p1.md', 2);
    expect(s.viewer).toMatchObject({ loading: false, error: null, target: { start: 2, end: 3, page: 2 } });

    const refused = fakeTransport({
      documentSource: vi.fn(async () => {
        throw new Error('this file is not in the document index; drop it on the window to add it');
      }),
    });
    const r = new DocumentsStore(refused.t);
    await r.openCitation(hit(4));
    expect(r.viewer).toMatchObject({ source: null, error: expect.stringContaining('not in the document index') });
    r.closeViewer();
    expect(r.viewer).toBeNull();
  });
});

describe('snapshot of the documents parts', () => {
  it('reports them only when on screen', () => {
    const root = document.createElement('div');
    const base = { activeSession: null, sessionTitles: [], streaming: false };
    expect(Object.keys(buildSnapshot(base, root))).toEqual(['activeSession', 'sessionTitles', 'messages', 'banner', 'streaming']);
    root.innerHTML = `
      <div data-testid="indexing-bar" data-phase="done" data-done="3" data-total="3"><span data-testid="indexing-label">Indexed 3 files</span></div>
      <aside data-testid="documents-panel"><ul>
        <li data-testid="doc-item" data-status="failed"><span data-testid="doc-name">papers/x.txt</span><p data-testid="doc-reason">binary content</p></li>
      </ul></aside>
      <div data-testid="message" data-role="assistant"><div data-part="body">See <a data-testid="citation-link">[1]</a></div></div>
      <div data-testid="source-viewer" data-start="2" data-end="3"><h2 data-testid="source-name">papers/p1.md</h2>
        <div data-testid="source-marked"><span class="txt">b</span></div><div data-testid="source-marked"><span class="txt">c</span></div></div>`;
    const snap = buildSnapshot(base, root);
    expect(snap.indexing).toEqual({ phase: 'done', done: 3, total: 3, label: 'Indexed 3 files' });
    expect(snap.documents).toEqual([{ name: 'papers/x.txt', status: 'failed', reason: 'binary content' }]);
    expect(snap.citations).toEqual(['[1]']);
    expect(snap.citationPoints).toEqual([{ x: 0, y: 0 }]); // jsdom lays nothing out
    expect(snap.viewer).toEqual({ name: 'papers/p1.md', start: 2, end: 3, highlighted: 'b\nc' });
  });
});
