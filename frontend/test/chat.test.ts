import { describe, expect, it, vi } from 'vitest';
import { ChatStore } from '../src/lib/chat.svelte';
import type { Candidate, CandidateDetail, DoctorReport, EvaluationJob, Intent, QEvent, Session, StandingFiring, StandingSummary } from '../src/lib/protocol';
import { event } from './events';
import type { OpCall } from '../src/lib/transport/ops';
import type { Transport } from '../src/lib/transport/transport';

function session(id: string, title = id): Session {
  return { id, title, createdAt: '2026-11-30T10:00:00Z', updatedAt: '2026-11-30T10:00:00Z', lastSeq: 0, running: false };
}
const ev = event;

/** An in-memory host whose live stream the test drives by hand. */
class FakeHost implements Transport {
  // The ports' operations and the inspector are not this file's subject.
  op = vi.fn(async () => {
    throw new Error('no operation in this test');
  }) as unknown as OpCall;
  calls = vi.fn();
  modelCall = vi.fn();
  callRequest = vi.fn();
  answersInPage = true;
  choosesFolderInDialog = false;
  // The documents panel is not this file's subject (test/documents.test.ts).
  takesFileDrops = false;
  documents = vi.fn(async () => ({ embedder: '', offline: true, roots: [], documents: [], progress: { running: false, phase: 'idle' as const, total: 0, done: 0, failed: 0, refused: 0, skipped: 0, etaMs: 0, queued: 0 } }));
  indexPaths = vi.fn(async () => {});
  cancelIndexing = vi.fn(async () => {});
  retryDocument = vi.fn(async () => {});
  removeDocument = vi.fn(async () => {});
  setEmbedModel = vi.fn(async () => {});
  documentSource = vi.fn(async () => ({ path: '', name: '', format: '', text: '' }));
  subscribeIndexing = vi.fn(() => () => {});
  // Nor is the models screen (test/models.test.ts).
  models = vi.fn(async () => ({ installed: [], recommended: [], pulls: [] }));
  pullModel = vi.fn(async () => {});
  cancelPull = vi.fn(async () => {});
  deleteModel = vi.fn(async () => {});
  subscribePulls = vi.fn(() => () => {});
  // Nor is the notes panel (test/notes.test.ts).
  notesTree = vi.fn(async () => ({ root: '', path: '.', entries: [] }));
  noteText = vi.fn(async (path: string) => ({ path, text: '', size: 0, limit: 0, modified: '' }));
  noteChanges = vi.fn(async () => ({ changes: [], undoAll: {} }));
  undoChange = vi.fn(async () => ({ undone: [] }));
  undoConversation = vi.fn(async () => ({ undone: [] }));
  noteVersions = vi.fn(async (id: string) => ({ id, path: '', quire: null, now: null, limit: 0 }));
  previewWrite = vi.fn(async (tool: string) => ({ tool, before: null, after: null, diff: '', limit: 0 }));
  noteLinks = vi.fn(async (path: string) => ({ path, indexed: false, backlinks: [], unresolved: [], backlinkCount: 0, unresolvedCount: 0, limit: 0 }));
  // Nor are the batches (test/batches.test.ts).
  readonly confirmsBatchInDialog = false;
  batches = vi.fn(async () => []);
  batch = vi.fn(async () => {
    throw new Error('no batches here');
  });
  startBatch = this.batch;
  pauseBatch = this.batch;
  resumeBatch = this.batch;
  cancelBatch = this.batch;
  applyBatch = this.batch;
  undoBatch = this.batch;
  subscribeBatches = vi.fn(() => () => {});
  // Nor are the MCP servers (test/mcp.test.ts).
  readonly confirmsLoosenInDialog = false;
  mcpServers = vi.fn(async () => ({ servers: [], tokens: 0 }));
  mcp = vi.fn(async () => {
    throw new Error('no MCP servers here');
  });
  putMcpServer = this.mcp;
  removeMcpServer = this.mcp;
  importMcp = this.mcp;
  controlMcpServer = this.mcp;
  setMcpTool = this.mcp;
  subscribeMcp = vi.fn(() => () => {});
  // Nor is evolution (test/evolution.test.ts).
  readonly confirmsEvolutionInDialog = false;
  evolution = vi.fn(async () => ({ candidates: [], signals: [], learn: false }));
  setEvolutionLearning = this.evolution;
  candidate = vi.fn(async (): Promise<CandidateDetail> => {
    throw new Error('no candidate');
  });
  proposeCandidate = vi.fn(async (): Promise<Candidate> => {
    throw new Error('no candidate');
  });
  evaluateCandidate = vi.fn(async (): Promise<EvaluationJob> => {
    throw new Error('no candidate');
  });
  evaluationJob = this.evaluateCandidate;
  cancelEvaluation = this.evaluateCandidate;
  subscribeEvaluations = vi.fn(() => () => {});
  approveCandidate = this.proposeCandidate;
  refuseCandidate = this.proposeCandidate;
  activateCandidate = this.proposeCandidate;
  rollbackCandidate = this.proposeCandidate;
  // Nor are the skills (test/skills.test.ts).
  skills = vi.fn(async () => {
    throw new Error('no skills here');
  });
  setSkillEnabled = this.skills;
  installSkill = this.skills;
  // Nor are the standing tasks (test/standing.test.ts).
  standingTasks = vi.fn(async () => []);
  standingTask = vi.fn(async (): Promise<StandingSummary> => {
    throw new Error('no standing tasks here');
  });
  addStandingTask = this.standingTask;
  editStandingTask = this.standingTask;
  pauseStandingTask = this.standingTask;
  removeStandingTask = vi.fn(async () => {});
  runStandingTask = vi.fn(async (): Promise<StandingFiring> => {
    throw new Error('no standing tasks here');
  });
  // The Settings screen is not this file's subject (test/settings.test.ts).
  settings = vi.fn(async () => {
    throw new Error('no settings here');
  });
  saveSettings = vi.fn(async () => {
    throw new Error('no settings here');
  });
  checkOllama = vi.fn(async (address: string) => ({ address, ok: false, models: [], message: '' }));
  notesDir = '';
  /** When set, chooseNotesFolder rejects with it. */
  folderError: string | null = null;
  notesFolder = vi.fn(async () => this.notesDir);
  chooseNotesFolder = vi.fn(async (path?: string) => {
    if (this.folderError) throw new Error(this.folderError);
    this.notesDir = path ?? '';
    return this.notesDir;
  });
  sessions: Session[] = [];
  logs = new Map<string, QEvent[]>();
  report: DoctorReport = { ok: true, checks: [] };
  onEvents: (e: QEvent[]) => void = () => {};
  onSessions: (s: Session[]) => void = () => {};
  onResync: () => void = () => {};
  eventsCalls: [string, number][] = [];
  /** When set, events() waits for this before answering. */
  gate: Promise<void> | null = null;
  sent: [string, string][] = [];
  /** The intent of each send, in order. */
  intents: (Intent | undefined)[] = [];
  /** The idempotency key of each send, in order. */
  keys: string[] = [];
  nextId = 1;

  // The memory panel's part of the host (unused by these tests).
  memory = vi.fn(async () => ({ items: [], approval: false, learn: false }));
  editMemory = vi.fn(async (): Promise<never> => {
    throw new Error('not in this fake');
  });
  forgetMemory = vi.fn(async () => {});
  reviewMemory = vi.fn(async () => {});
  setMemorySettings = vi.fn(async () => ({ items: [], approval: false, learn: false }));

  doctor = vi.fn(async () => this.report);
  listSessions = vi.fn(async () => this.sessions.slice());
  newSession = vi.fn(async (title: string) => {
    const s = session(`n${this.nextId++}`, title);
    this.sessions.unshift(s);
    this.logs.set(s.id, [ev(s.id, 0, 'session.created', { title })]);
    return s;
  });
  renameSession = vi.fn(async (id: string, title: string) => {
    const s = { ...this.sessions.find((x) => x.id === id)!, title };
    this.sessions = this.sessions.map((x) => (x.id === id ? s : x));
    return s;
  });
  deleteSession = vi.fn(async (id: string) => {
    this.sessions = this.sessions.filter((s) => s.id !== id);
  });
  events = vi.fn(async (id: string, from: number) => {
    this.eventsCalls.push([id, from]);
    if (this.gate) await this.gate;
    return (this.logs.get(id) ?? []).filter((e) => e.seq >= from);
  });
  send = vi.fn(async (id: string, text: string, key: string, intent?: Intent) => {
    this.sent.push([id, text]);
    this.keys.push(key);
    this.intents.push(intent);
    return 'run-1';
  });
  answer = vi.fn(async (_id: string, _callIds: string[], _allowed: boolean, _feedback: string) => {});
  // The search palette and the export are test/find.test.ts's subject.
  searchConversations = vi.fn(async (query: string) => ({ query, hits: [] }));
  exportSession = vi.fn(async () => null);
  cancel = vi.fn(async () => {});
  // The branch commands are test/branches.test.ts's subject.
  editMessage = vi.fn(async (): Promise<never> => {
    throw new Error('not in this fake');
  });
  regenerate = vi.fn(async (): Promise<never> => {
    throw new Error('not in this fake');
  });
  continueRun = vi.fn(async () => 'run-continue');
  reportView = vi.fn(async () => true);
  subscribe(onEvents: (e: QEvent[]) => void, onSessions: (s: Session[]) => void, onResync?: () => void) {
    this.onEvents = onEvents;
    this.onSessions = onSessions;
    this.onResync = onResync ?? (() => {});
    return () => {};
  }
}

function hostWithTwo(): FakeHost {
  const h = new FakeHost();
  h.sessions = [session('new', 'Newest'), session('old', 'Older')];
  h.logs.set('new', [ev('new', 0, 'session.created', { title: 'Newest' }), ev('new', 1, 'user.message', { text: 'hi' })]);
  h.logs.set('old', [ev('old', 0, 'session.created', { title: 'Older' }), ev('old', 1, 'user.message', { text: 'old one' })]);
  return h;
}

const texts = (c: ChatStore) => c.conv?.items.map((i) => `${i.kind}:${i.text}`) ?? [];

describe('ChatStore', () => {
  it('on start loads sessions, opens the newest from seq 0 and folds it', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    expect(c.sessions.map((s) => s.title)).toEqual(['Newest', 'Older']);
    expect(c.listLoaded).toBe(true);
    expect(c.activeId).toBe('new');
    expect(h.eventsCalls).toEqual([['new', 0]]);
    expect(texts(c)).toEqual(['user:hi']);
    expect(c.showBanner).toBe(false);
  });

  it("a batch worker's session is no chat: not listed, not opened as the newest, not by a live list", async () => {
    const h = hostWithTwo();
    const worker = (id: string): Session => ({ ...session(id, `Organise inbox/${id}.md`), kind: 'worker' });
    h.sessions.unshift(worker('w1'));
    h.logs.set('w1', [ev('w1', 0, 'session.created', { title: 'Organise inbox/w1.md', kind: 'worker' })]);
    const c = new ChatStore(h);
    await c.start();
    expect(c.activeId).toBe('new');
    expect(c.sessions.map((s) => s.id)).toEqual(['new', 'old']);
    h.onSessions([worker('w2'), ...h.sessions]);
    expect(c.sessions.map((s) => s.id)).toEqual(['new', 'old']);
    expect(h.eventsCalls.map(([id]) => id)).toEqual(['new']);
  });

  // The composer is there before the list of chats: the newest chat is
  // opened only if the user began nothing in the new chat meanwhile.
  describe('words begun before the list of chats is here stay in the new chat', () => {
    function slowList() {
      const h = hostWithTwo();
      let release = () => {};
      const ready = new Promise<void>((r) => (release = r));
      h.listSessions.mockImplementationOnce(async () => {
        await ready;
        return h.sessions.slice();
      });
      return { h, release };
    }

    it('typed (the draft the composer keeps as it is typed)', async () => {
      const { h, release } = slowList();
      const c = new ChatStore(h);
      const started = c.start();
      expect(c.listLoaded).toBe(false);
      c.keepDraft(null, '/exfil http://x');
      release();
      await started;
      expect(c.activeId).toBeNull();
      expect(c.draftOf(null)).toBe('/exfil http://x');
      expect(c.sessions.map((s) => s.id)).toEqual(['new', 'old']);
      expect(h.eventsCalls).toEqual([]);
    });

    it('sent: the message goes to a chat of its own, which stays open', async () => {
      const { h, release } = slowList();
      const c = new ChatStore(h);
      const started = c.start();
      const sent = c.send('a first message');
      release();
      await Promise.all([started, sent]);
      expect(h.sent).toEqual([['n1', 'a first message']]);
      expect(c.activeId).toBe('n1');
      expect(h.eventsCalls.map(([id]) => id)).not.toContain('new');
    });

    it('nothing begun: the newest opens as before', async () => {
      const { h, release } = slowList();
      const c = new ChatStore(h);
      const started = c.start();
      c.keepDraft(null, ''); // typed, then cleared
      release();
      await started;
      expect(c.activeId).toBe('new');
    });
  });

  it('with no sessions, nothing is open', async () => {
    const c = new ChatStore(new FakeHost());
    await c.start();
    expect(c.activeId).toBeNull();
    expect(c.conv).toBeNull();
  });

  it('folds live events of the active session only, once each', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.onEvents([ev('new', 2, 'run.started', {}, 'r'), ev('old', 2, 'user.message', { text: 'elsewhere' })]);
    h.onEvents([ev('new', 3, 'assistant.delta', { content: 'Hel' }, 'r')]);
    h.onEvents([ev('new', 3, 'assistant.delta', { content: 'Hel' }, 'r')]); // redelivered
    expect(texts(c)).toEqual(['user:hi', 'assistant:Hel']);
    expect(c.running).toBe(true);
    expect(c.streaming).toBe(true);
    h.onEvents([ev('new', 4, 'assistant.message', { content: 'Hello' }, 'r'), ev('new', 5, 'run.finished', { reason: 'completed' }, 'r')]);
    expect(texts(c)).toEqual(['user:hi', 'assistant:Hello']);
    expect(c.running).toBe(false);
    expect(c.streaming).toBe(false);
  });

  it('buffers live events that arrive while the log is loading', async () => {
    const h = hostWithTwo();
    let open!: () => void;
    h.gate = new Promise((r) => (open = r));
    const c = new ChatStore(h);
    const started = c.start();
    await vi.waitFor(() => expect(h.eventsCalls).toHaveLength(1));
    // The live stream is ahead of the load: seq 2 arrives first, and seq 1 twice.
    h.onEvents([ev('new', 1, 'user.message', { text: 'hi' }), ev('new', 2, 'user.message', { text: 'live' })]);
    open();
    await started;
    expect(texts(c)).toEqual(['user:hi', 'user:live']);
  });

  it('a gap in the live stream triggers a catch-up from lastSeq + 1', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.logs.get('new')!.push(ev('new', 2, 'user.message', { text: 'missed' }), ev('new', 3, 'user.message', { text: 'live' }));
    h.onEvents([ev('new', 3, 'user.message', { text: 'live' })]);
    await vi.waitFor(() => expect(texts(c)).toEqual(['user:hi', 'user:missed', 'user:live']));
    expect(h.eventsCalls.at(-1)).toEqual(['new', 2]);
  });

  it('a reconnect (resync) refreshes the list and catches up', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.logs.get('new')!.push(ev('new', 2, 'run.finished', { reason: 'error', error: 'Lost.' }, 'r'));
    h.sessions.push(session('third'));
    h.onResync();
    await vi.waitFor(() => expect(texts(c)).toEqual(['user:hi', 'error:Lost.']));
    expect(c.sessions).toHaveLength(3);
  });

  it('switching sessions loads the other log and asks for focus', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    const focus = c.focusRequest;
    await c.select('old');
    expect(texts(c)).toEqual(['user:old one']);
    expect(c.active?.title).toBe('Older');
    expect(c.focusRequest).toBeGreaterThan(focus);
  });

  it('sending with no session creates one first, untitled: Quire names it from the message', async () => {
    const h = new FakeHost();
    const c = new ChatStore(h);
    await c.start();
    const text = 'Please summarise all of my garden notes from last spring';
    expect(await c.send(text)).toBe(true);
    expect(h.newSession).toHaveBeenCalledWith('');
    expect(c.activeId).toBe('n1');
    expect(h.sent).toEqual([['n1', text]]);
    expect(c.sessions[0].id).toBe('n1');
  });

  it('Stop stays on from Send until the run finishes, with no gap before run.started', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    expect(c.running).toBe(false);
    await c.send('hello');
    expect(c.sending).toBe(false);
    expect(c.running).toBe(true); // Send answered, run.started not here yet
    h.onEvents([ev('new', 2, 'user.message', { text: 'hello' }), ev('new', 3, 'run.started', {}, 'run-1')]);
    expect(c.running).toBe(true);
    h.onEvents([ev('new', 4, 'run.finished', { reason: 'completed' }, 'run-1')]);
    expect(c.running).toBe(false);
  });

  it('a run that finished before Send answered leaves no Stop behind', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.send.mockImplementationOnce(async () => {
      h.onEvents([ev('new', 2, 'user.message', { text: 'x' }), ev('new', 3, 'run.started', {}, 'r'), ev('new', 4, 'run.finished', { reason: 'error', error: 'No.' }, 'r')]);
      return 'r';
    });
    await c.send('x');
    expect(c.running).toBe(false);
  });

  it('each user message gets an idempotency key of its own', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    await c.send('same words');
    h.onEvents([ev('new', 2, 'user.message', { text: 'same words' }), ev('new', 3, 'run.finished', { reason: 'completed' }, 'r')]);
    await c.send('same words');
    expect(h.sent).toEqual([
      ['new', 'same words'],
      ['new', 'same words'],
    ]);
    expect(h.keys).toHaveLength(2);
    for (const k of h.keys) expect(k).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(h.keys[0]).not.toBe(h.keys[1]);
  });

  it('a failed send says why and returns false', async () => {
    const h = hostWithTwo();
    h.send.mockRejectedValueOnce(new Error('Ollama is not running.'));
    const c = new ChatStore(h);
    await c.start();
    expect(await c.send('x')).toBe(false);
    expect(c.error).toBe('Could not send: Ollama is not running.');
    expect(c.sending).toBe(false);
  });

  it('blank messages are not sent', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    expect(await c.send('   \n')).toBe(false);
    expect(h.send).not.toHaveBeenCalled();
  });

  it('new chat opens a draft; the first message creates the chat, untitled for Quire to name', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    await c.newChat();
    await c.newChat(); // twice: still nothing made
    expect(c.activeId).toBeNull();
    expect(h.newSession).not.toHaveBeenCalled();
    expect(c.sessions.map((s) => s.id)).toEqual(['new', 'old']);
    c.keepDraft(null, 'half a thought');
    await c.select('old');
    expect(c.draftOf(null)).toBe('half a thought');
    await c.newChat();
    expect(await c.send('plan the week')).toBe(true);
    expect(h.newSession).toHaveBeenCalledTimes(1);
    expect(h.newSession).toHaveBeenCalledWith('');
    expect(c.activeId).toBe('n1');
    expect(h.sent).toEqual([['n1', 'plan the week']]);
  });

  it('a jump opens the chat of the hit and waits there until shown', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    await c.jumpTo('old', 1);
    expect(c.activeId).toBe('old');
    expect(c.jump).toMatchObject({ session: 'old', seq: 1 });
    const n = c.jump!.n;
    c.jumped();
    expect(c.jump).toBeNull();
    await c.jumpTo('old', 1); // the same hit again is a new jump
    expect(c.jump!.n).toBe(n + 1);
  });

  it('rename and delete', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    await c.send('x'); // into the open chat
    await c.select(null);
    await c.send('a new one');
    expect(c.activeId).toBe('n1');
    await c.rename('n1', '  Garden  ');
    expect(h.renameSession).toHaveBeenCalledWith('n1', 'Garden');
    expect(c.sessions[0].title).toBe('Garden');
    await c.rename('n1', '   '); // blank: ignored
    expect(h.renameSession).toHaveBeenCalledTimes(1);
    await c.remove('n1');
    expect(c.sessions.map((s) => s.id)).toEqual(['new', 'old']);
    expect(c.activeId).toBe('new'); // the next one opens
    await c.remove('new');
    await c.remove('old');
    expect(c.activeId).toBeNull();
    expect(c.conv).toBeNull();
  });

  it('a session deleted elsewhere closes; one created here survives a stale list', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.onSessions([session('old', 'Older')]);
    await vi.waitFor(() => expect(c.activeId).toBe('old'));

    await c.newChat();
    await c.send('hello');
    h.onSessions([session('old', 'Older')]); // predates the new chat
    expect(c.activeId).toBe('n1');
    expect(c.sessions.map((s) => s.id)).toEqual(['n1', 'old']);
  });

  it('a failing doctor shows the banner until dismissed', async () => {
    const h = hostWithTwo();
    h.report = {
      ok: false,
      checks: [
        { name: 'ollama', ok: false, detail: 'not running at 127.0.0.1:11434', remedy: 'start it with `ollama serve`' },
        { name: 'database', ok: true, detail: 'ok' },
      ],
    };
    const c = new ChatStore(h);
    await c.start();
    expect(c.showBanner).toBe(true);
    expect(c.failingChecks.map((x) => x.name)).toEqual(['ollama']);
    c.dismissBanner();
    expect(c.showBanner).toBe(false);
  });

  it('a doctor that cannot run also shows the banner', async () => {
    const h = hostWithTwo();
    h.doctor.mockRejectedValueOnce(new Error('boom'));
    const c = new ChatStore(h);
    await c.start();
    expect(c.showBanner).toBe(true);
    expect(c.doctorError).toBe('boom');
  });

  it('cancel asks the host to stop the active session', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    await c.cancel();
    expect(h.cancel).toHaveBeenCalledWith('new');
  });

  it('a cancel the host refuses says why', async () => {
    const h = hostWithTwo();
    h.cancel.mockRejectedValueOnce(new Error('That chat does not exist any more.'));
    const c = new ChatStore(h);
    await c.start();
    await expect(c.cancel()).resolves.toBeUndefined();
    expect(c.error).toBe('Could not stop: That chat does not exist any more.');
  });

  it('a refused handshake shows its sentence instead of the chats', async () => {
    const h = hostWithTwo();
    const sentence = 'incompatible protocol version: this Quire speaks 2.0, the other side 1.0; update the older one';
    h.listSessions.mockRejectedValueOnce(new Error(sentence));
    const c = new ChatStore(h);
    await c.start();
    expect(c.error).toBe(`Could not load your chats: ${sentence}`);
    expect(c.sessions).toEqual([]);
    expect(c.listLoaded).toBe(true); // the failure is said; the list stops waiting
  });

  it('an idle send is a follow-up, whatever the composer asked', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    expect(c.runGoing).toBe(false);
    await c.send('first', 'steer');
    expect(h.intents).toEqual(['follow_up']);
  });

  it('while a request is going: Enter steers (the default), "Queue as next request" is a follow-up', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.onEvents([ev('new', 2, 'run.started', { model: 'm' }, 'r'), ev('new', 3, 'assistant.delta', { content: 'Hel' }, 'r')]);
    expect(c.runGoing).toBe(true);
    await c.send('only this week');
    await c.send('and then the roses', 'follow_up');
    expect(h.sent).toEqual([
      ['new', 'only this week'],
      ['new', 'and then the roses'],
    ]);
    expect(h.intents).toEqual(['steer', 'follow_up']);
    expect(new Set(h.keys).size).toBe(2);
    // The steer shows as pending until a step takes it up.
    h.onEvents([ev('new', 4, 'input.received', { inputId: 'i2', intent: 'steer', text: 'only this week', runId: 'x' })]);
    expect(c.conv?.pending.map((p) => p.text)).toEqual(['only this week']);
    h.onEvents([ev('new', 5, 'assistant.message', { content: 'Hello' }, 'r'), ev('new', 6, 'user.message', { text: 'only this week', inputId: 'i2', intent: 'steer' }, 'r')]);
    expect(c.conv?.pending).toEqual([]);
    expect(texts(c)).toEqual(['user:hi', 'assistant:Hello', 'user:only this week']);
    h.onEvents([ev('new', 7, 'run.finished', { reason: 'completed' }, 'r')]);
    expect(c.runGoing).toBe(false);
    await c.send('new topic', 'steer');
    expect(h.intents.at(-1)).toBe('follow_up');
  });

  it('the open question is the last permission item without an answer', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    expect(c.question).toBeNull();
    expect(c.answersInPage).toBe(true);
    const calls = [
      { id: 'w1', name: 'write_file', arguments: '{}' },
      { id: 'w2', name: 'delete_file', arguments: '{}' },
    ];
    h.onEvents([
      ev('new', 2, 'run.started', { model: 'm' }, 'r'),
      ev('new', 3, 'assistant.message', { content: '', toolCalls: calls }, 'r'),
      ev('new', 4, 'permission.requested', { calls, deadlineNs: 0 }, 'r'),
    ]);
    expect(c.question?.key).toBe(4);
    expect(c.running).toBe(true);
    h.onEvents([ev('new', 5, 'permission.answered', { callIds: ['w1', 'w2'], allowed: true }, 'r')]);
    expect(c.question).toBeNull();
  });

  it('answer sends every call of the question, the choice and the trimmed reason', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    const calls = [
      { id: 'w1', name: 'write_file', arguments: '{}' },
      { id: 'w2', name: 'delete_file', arguments: '{}' },
    ];
    h.onEvents([ev('new', 2, 'run.started', { model: 'm' }, 'r'), ev('new', 3, 'permission.requested', { calls, deadlineNs: 0 }, 'r')]);
    let release!: () => void;
    h.answer.mockImplementationOnce(() => new Promise<void>((r) => (release = r)));
    const pending = c.answer(c.question!, false, '  not today  ');
    expect(c.answering).toBe(3);
    expect(await c.answer(c.question!, true)).toBe(false); // one answer at a time
    release();
    expect(await pending).toBe(true);
    expect(c.answering).toBeNull();
    expect(h.answer).toHaveBeenCalledTimes(1);
    expect(h.answer).toHaveBeenCalledWith('new', ['w1', 'w2'], false, 'not today');
    expect(c.answerError).toBeNull();
  });

  it('an answer the host refuses (the question closed) keeps its sentence on that question', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    const calls = [{ id: 'w1', name: 'write_file', arguments: '{}' }];
    h.onEvents([ev('new', 2, 'run.started', { model: 'm' }, 'r'), ev('new', 3, 'permission.requested', { calls, deadlineNs: 0 }, 'r')]);
    const sentence = 'there is no open question about those calls (answered already, or the request ended)';
    h.answer.mockRejectedValueOnce(new Error(sentence));
    expect(await c.answer(c.question!, true)).toBe(false);
    expect(c.answerError).toEqual({ key: 3, text: sentence });
    expect(c.answering).toBeNull();
    await c.select('old');
    expect(c.answerError).toBeNull();
  });
});

describe('ChatStore: the notes folder', () => {
  it('loads it on start; no folder shows the hint until dismissed', async () => {
    const h = new FakeHost();
    const c = new ChatStore(h);
    expect(c.notesDir).toBeNull();
    expect(c.showNotesHint).toBe(false); // not known yet: no hint
    await c.start();
    expect(h.notesFolder).toHaveBeenCalledTimes(1);
    expect(c.notesDir).toBe('');
    expect(c.showNotesHint).toBe(true);
    c.dismissNotesHint();
    expect(c.showNotesHint).toBe(false);
  });

  it('a folder already chosen: no hint', async () => {
    const h = new FakeHost();
    h.notesDir = '/home/ann/Notes';
    const c = new ChatStore(h);
    await c.start();
    expect(c.notesDir).toBe('/home/ann/Notes');
    expect(c.showNotesHint).toBe(false);
  });

  it('a folder that cannot be read is unknown, with the sentence, and no hint', async () => {
    const h = new FakeHost();
    h.notesFolder.mockRejectedValueOnce(new Error('This Quire window cannot choose a notes folder; update Quire.'));
    const c = new ChatStore(h);
    await c.start();
    expect(c.notesDir).toBeNull();
    expect(c.notesDirError).toBe('This Quire window cannot choose a notes folder; update Quire.');
    expect(c.showNotesHint).toBe(false);
  });

  it("chooseNotesFolder passes the path on; an error comes back as the host's sentence and changes nothing", async () => {
    const h = new FakeHost();
    const c = new ChatStore(h);
    await c.start();
    h.folderError = 'the notes folder notes cannot be used: it is not an absolute path';
    expect(await c.chooseNotesFolder('notes')).toBe(h.folderError);
    expect(c.notesDir).toBe('');
    expect(c.choosingFolder).toBe(false);
    h.folderError = null;
    expect(await c.chooseNotesFolder('/home/ann/Notes')).toBeNull();
    expect(h.chooseNotesFolder).toHaveBeenLastCalledWith('/home/ann/Notes');
    expect(c.notesDir).toBe('/home/ann/Notes');
    expect(c.showNotesHint).toBe(false);
  });

  it('a cancelled dialog ("") keeps the folder there was', async () => {
    const h = new FakeHost();
    h.notesDir = '/home/ann/Notes';
    h.choosesFolderInDialog = true;
    h.chooseNotesFolder.mockResolvedValueOnce('');
    const c = new ChatStore(h);
    await c.start();
    expect(c.choosesFolderInDialog).toBe(true);
    expect(await c.chooseNotesFolder()).toBeNull();
    expect(h.chooseNotesFolder).toHaveBeenCalledWith(undefined);
    expect(c.notesDir).toBe('/home/ann/Notes');
  });
});

describe('ChatStore: plans and note changes', () => {
  const MOVE = { id: 'chg_01', tool: 'move_note', kind: 'move', path: 'projects/a.md', from: 'inbox/a.md', before: null, after: null };

  it('derives the latest plan and the undone changes of the active conversation', async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    expect(c.plan).toBeNull();
    const plan = { items: [{ text: 'a', done: true }, { text: 'b', done: false }] };
    h.onEvents([
      ev('new', 2, 'run.started', { model: 'm' }, 'r'),
      ev('new', 3, 'assistant.message', { content: '', toolCalls: [{ id: 'p', name: 'update_todos', arguments: '{}' }, { id: 'm', name: 'move_note', arguments: '{}' }] }, 'r'),
      ev('new', 4, 'tool.result', { callId: 'p', name: 'update_todos', status: 'success', content: '', data: plan }, 'r'),
      ev('new', 5, 'tool.result', { callId: 'm', name: 'move_note', status: 'success', content: '', data: MOVE }, 'r'),
    ]);
    expect(c.runGoing).toBe(true);
    expect(c.plan?.progress).toBe('1 of 2 done');
    expect(c.undone.size).toBe(0);
    h.onEvents([
      ev('new', 6, 'assistant.message', { content: '', toolCalls: [{ id: 'u', name: 'undo', arguments: '{"changeId":"chg_01"}' }] }, 'r'),
      ev('new', 7, 'tool.result', { callId: 'u', name: 'undo', status: 'success', content: '', data: { ...MOVE, id: 'chg_02', tool: 'undo', undoes: 'chg_01' } }, 'r'),
    ]);
    expect([...c.undone]).toEqual(['chg_01']);
    await c.select('old');
    expect(c.plan).toBeNull();
  });

  it("marks a change undone by the user's own undo (note.undone), and live again when the model undoes that undo", async () => {
    const h = hostWithTwo();
    const c = new ChatStore(h);
    await c.start();
    h.onEvents([
      ev('new', 2, 'run.started', { model: 'm' }, 'r'),
      ev('new', 3, 'assistant.message', { content: '', toolCalls: [{ id: 'm', name: 'move_note', arguments: '{}' }] }, 'r'),
      ev('new', 4, 'tool.result', { callId: 'm', name: 'move_note', status: 'success', content: '', data: MOVE }, 'r'),
      ev('new', 5, 'run.finished', { reason: 'completed' }, 'r'),
    ]);
    expect([...c.undone]).toEqual([]);
    h.onEvents([ev('new', 6, 'note.undone', { undoes: 'chg_01', change: { ...MOVE, id: 'chg_u', tool: 'undo', undoes: 'chg_01' }, text: 'Undid it' })]);
    expect([...c.undone]).toEqual(['chg_01']);
    h.onEvents([
      ev('new', 7, 'run.started', { model: 'm' }, 'r2'),
      ev('new', 8, 'assistant.message', { content: '', toolCalls: [{ id: 'u', name: 'undo', arguments: '{"changeId":"chg_u"}' }] }, 'r2'),
      ev('new', 9, 'tool.result', { callId: 'u', name: 'undo', status: 'success', content: '', data: { ...MOVE, id: 'chg_r', tool: 'undo', undoes: 'chg_u' } }, 'r2'),
      ev('new', 10, 'run.finished', { reason: 'completed' }, 'r2'),
    ]);
    expect(c.undone.has('chg_01')).toBe(false);
  });
});
