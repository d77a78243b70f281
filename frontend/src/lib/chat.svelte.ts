// The app's state and the only code that talks to the transport. Components
// read its fields (Svelte 5 runes) and call its methods.
//
// Ordering contract: live batches are folded in arrival order; while a
// session's log is being (re)loaded, live batches for it are buffered and
// folded after the loaded events, and the fold drops duplicate seqs, so a
// load that overlaps the live stream neither loses nor doubles anything.
//
// Sending: each user message gets its own idempotency key here, and every
// attempt to deliver that message (a transport's retries) carries it. While a
// run is going, a message is sent as a steer (it joins the request at its next
// step) or as a follow-up (queued as the next request); otherwise follow_up.
//
// Permission questions: the open one of the active session is `question`;
// `answer` sends the user's answer (only where the transport answersInPage).
// Go sends each question whole, with every call's description
// (`windowQuestions`, from the transport's subscribeQuestions): the chat it
// belongs to is opened and its card shows them. In the desktop window
// `questionShown` then lets the native dialog open; in a browser the card's
// Allow is offered only then.
//
// The notes folder: `notesDir` is loaded at start ("" until one is chosen,
// which shows the first-run hint); `chooseNotesFolder` opens the desktop
// window's dialog, or in a browser sets the path the user typed. Undo on a
// note change is Quire's own (the host's undoChange, ToolCallCard and the
// Changes list), never a message asking the model.
//
// Branches (docs/PROTOCOL.md "Branches"): `editMessage` and `regenerate`
// ask Quire for a branch (one command each, with its own key) and open it;
// `continueReply` asks the model to go on after a reply that was cut off
// (`canContinue`). A branch's history is shown whole: `inherited` holds
// the parts it takes from its ancestors (each folded from that ancestor's
// log up to the branch point; the log only grows, so a part never changes
// once loaded), then `conv` is its own; `switchers` are the ‹ 2/3 › of the
// shown history (lib/branches.ts), and `switchTo` opens another version.
//
// Health: `doctor` is the latest report, from the first check, "Check
// again" (`recheck`) and every change Go noticed on its own
// (subscribeHealth: Ollama started, a model downloaded). `firstRun` says
// which first screen a new user needs: how to install Ollama, or a model
// to download; null once the chat can work.
import { lineage, switchers, type Part, type Switcher } from './branches';
import { contextUse, emptyConversation, fold, foldAll, hasGap, type ContextUse, type Conversation, type Item } from './conversation';
import { newIdempotencyKey } from './idempotency';
import type { BranchResult, Check, DoctorReport, Intent, QEvent, Question, Session } from './protocol';
import { latestPlan, undoneChanges, type ChecklistDetail } from './toolcard';
import type { Transport } from './transport/transport';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The last permission item of `conv` still waiting for an answer, or null. */
export function openQuestion(conv: Conversation | null): Item | null {
  const items = conv?.items ?? [];
  for (let i = items.length - 1; i >= 0; i--) {
    const p = items[i].permission;
    if (items[i].kind === 'permission' && p && !p.answer && !p.closed) return items[i];
  }
  return null;
}

/** A part of a branch's history taken from an ancestor: its items up to the branch point. */
export interface InheritedPart extends Part {
  items: readonly Item[];
}

/**
 * The items of an ancestor's part as a branch shows them: the part may end
 * inside a request (a branch leaves just before the user's message, after
 * the request for it started), whose placeholder is dropped; nothing in it
 * is still being written.
 */
export function settledItems(items: readonly Item[]): Item[] {
  return items
    .filter((i) => !(i.kind === 'assistant' && i.streaming && !i.text && !i.thinking && !i.calls?.length))
    .map((i) => (i.streaming ? { ...i, streaming: false } : i));
}

/** The ends of a request after which Continue is offered: it stopped before the model had finished. */
const CONTINUABLE = new Set(['interrupted', 'error', 'cancelled']);

/**
 * Whether the last request of `conv` stopped before its end after the model
 * had said something, so it may be asked to continue. A request that failed
 * before any reply (Ollama not running) has nothing to go on from: its
 * error offers Retry instead (issue 31: Continue told the model its reply
 * was cut off when nothing had been generated).
 */
export function continuable(conv: Conversation | null): boolean {
  if (!conv || conv.activeRun) return false;
  for (let i = conv.events.length - 1; i >= 0; i--) {
    const e = conv.events[i];
    if (e.type !== 'run.finished') continue;
    if (!CONTINUABLE.has(String((e.payload as { reason?: unknown })?.reason ?? ''))) return false;
    // As Go's cutOff (kernel/runtime/branch.go): the run's last reply has
    // words and was cut off (a stop, a failure, a crash) or at its length.
    for (let j = i - 1; j >= 0; j--) {
      const m = conv.events[j];
      if (m.runId !== e.runId || m.type !== 'assistant.message') continue;
      const p = m.payload as { content?: string; thinking?: string; interrupted?: boolean; doneReason?: string };
      return !!(p.content || p.thinking) && (!!p.interrupted || p.doneReason === 'length');
    }
    return false;
  }
  return false;
}

/** Why a message cannot be sent now, and what to do: Ollama is not running, or no model can chat. */
export interface SendBlock {
  reason: string;
  fix: string;
}

/**
 * Whether the report says no reply can come (the checks the first screens
 * answer: Ollama, a model to chat with), with the check's own words. A
 * message sent then only saved a chat holding the raw connection error.
 */
export function sendBlockOf(r: DoctorReport | null): SendBlock | null {
  const c = (r?.checks ?? []).find((x) => !x.ok && (x.action === 'install-ollama' || x.action === 'download-model'));
  if (!c) return null;
  const reason = c.action === 'install-ollama' ? 'Quire cannot answer: Ollama is not running.' : 'Quire cannot answer: no model that can chat is installed.';
  return { reason, fix: c.hint || c.remedy || c.detail };
}

/** The first screens (ChatStore.firstRun). */
export type FirstRun = 'install' | 'download';

/** Which first screen a report calls for (the doctor's actions for the window), or null. */
export function firstRunOf(r: DoctorReport | null): FirstRun | null {
  const actions = new Set((r?.checks ?? []).filter((c) => !c.ok).map((c) => c.action));
  if (actions.has('install-ollama')) return 'install';
  if (actions.has('download-model')) return 'download';
  return null;
}

export class ChatStore {
  sessions = $state.raw<Session[]>([]);
  activeId = $state<string | null>(null);
  conv = $state.raw<Conversation | null>(null);
  doctor = $state.raw<DoctorReport | null>(null);
  doctorError = $state<string | null>(null);
  bannerDismissed = $state(false);
  /** "Check again" is on its way. */
  checking = $state(false);
  /** A transient problem to show above the composer, or null. */
  error = $state<string | null>(null);
  /** A send is on its way (before the host answered). */
  sending = $state(false);
  /** The active session's log is being loaded. */
  loading = $state(false);
  /** Bumped whenever the composer should take focus. */
  focusRequest = $state(0);
  /** The host's list of chats has come (or failed to): until then the sidebar says nothing of it. */
  listLoaded = $state(false);
  /** The key of the permission item whose answer is on its way, or null. */
  answering = $state<number | null>(null);
  /** Why the last answer failed, for the permission item with that key. */
  answerError = $state<{ key: number; text: string } | null>(null);
  /** The notes folder: null while not known (loading, or it could not be read), "" when none is chosen. */
  notesDir = $state<string | null>(null);
  /** Why the notes folder could not be read, or null. */
  notesDirError = $state<string | null>(null);
  /** The folder dialog is open, or a path is being checked. */
  choosingFolder = $state(false);
  /** The first-run hint about the notes folder was dismissed. */
  notesHintDismissed = $state(false);
  /** The questions Go is asking (in the window's dialog, or on this page's card), each with every call's whole description. */
  windowQuestions = $state.raw<Question[]>([]);

  /** The parts of the active conversation's history it inherits, oldest first (empty unless it is a branch). */
  inherited = $state.raw<InheritedPart[]>([]);
  /** A branch command is on its way. */
  branching = $state(false);

  readonly active = $derived(this.sessions.find((s) => s.id === this.activeId) ?? null);
  /**
   * After a send, the log's lastSeq at that moment, until a run.finished past
   * it is folded: keeps Stop on between Send's answer and run.started.
   */
  private awaitingAfter = $state<number | null>(null);
  /**
   * A request of the active session is going (not counting a send on its
   * way): a new message can steer it or be queued after it.
   */
  readonly runGoing = $derived(
    !!this.conv?.activeRun ||
      (this.awaitingAfter !== null && !!this.conv && this.conv.lastFinishedSeq <= this.awaitingAfter),
  );
  /** A run of the active session is in progress (Stop is offered). */
  readonly running = $derived(this.sending || this.runGoing);
  /** The open permission question of the active session (the last one not answered), or null. */
  readonly question = $derived<Item | null>(openQuestion(this.conv));
  readonly streaming = $derived(!!this.conv?.activeRun || !!this.conv?.items.some((i) => i.streaming));
  readonly failingChecks = $derived<Check[]>((this.doctor?.checks ?? []).filter((c) => !c.ok));
  readonly showBanner = $derived(
    !this.bannerDismissed && (this.doctorError !== null || (this.doctor !== null && !this.doctor.ok)),
  );
  /**
   * The first screen a new user needs instead of the chat: 'install' while
   * Ollama is not reachable, 'download' while no installed model can use
   * tools; null when the chat can work.
   */
  readonly firstRun = $derived<FirstRun | null>(firstRunOf(this.doctor));
  /** How full the model's context is in the active conversation (the header's meter), or null. */
  readonly context = $derived<ContextUse | null>(contextUse(this.conv));
  /** No notes folder yet: the hint above the composer asks for one. */
  readonly showNotesHint = $derived(this.notesDir === '' && !this.notesHintDismissed);
  /** The latest plan (update_todos) of the active conversation, or null. */
  readonly plan = $derived<ChecklistDetail | null>(latestPlan(this.conv));
  /** The ‹ 2/3 › switchers of the shown history, by itemKey(session, item key). */
  readonly switchers = $derived<Map<string, Switcher>>(this.switchersNow());
  /**
   * The last request of the active conversation stopped before its end (a
   * kill, a failure, a Stop) and none is going: Continue is offered.
   */
  readonly canContinue = $derived(!this.running && continuable(this.conv));
  /** Why Send is off (no reply can come), or null: the composer says it with the fix. */
  readonly sendBlock = $derived<SendBlock | null>(sendBlockOf(this.doctor));
  /** Ids of the note changes of the active conversation that a later undo reverted. */
  readonly undone = $derived<ReadonlySet<string>>(undoneChanges(this.conv));

  /** The message the search palette jumps to (the event's seq in `session`), or null. `n` tells two jumps apart. */
  jump = $state.raw<{ session: string; seq: number; n: number } | null>(null);
  /** The user message (its item key) whose editor should open: the composer's Up asks for it, the message's actions take it. */
  editRequest = $state<number | null>(null);

  private pending: QEvent[] | null = null;
  /** Folded ancestor parts, by `${session}@${upTo}` (they never change). */
  private parts = new Map<string, Conversation>();
  private partsToken = 0;
  private jumps = 0;
  /** Unsent composer text by chat id ('' is the new chat's draft). */
  private drafts = new Map<string, string>();
  // Counts the user's own choices of what is open (select, new chat, send):
  // start opens the newest chat only if none came while the list loaded.
  private choices = 0;
  /** Ids the host itself listed last time. */
  private listed = new Set<string>();
  private loadToken = 0;
  private unsubscribe: (() => void) | null = null;
  private unsubscribeQuestions: (() => void) | null = null;
  private unsubscribeHealth: (() => void) | null = null;

  constructor(private readonly t: Transport) {}

  /** The host, for panels with their own state (memory). */
  get host(): Transport {
    return this.t;
  }

  /** Questions can be answered in the page (else the desktop window asks in a dialog). */
  get answersInPage(): boolean {
    return this.t.answersInPage;
  }

  /**
   * The host sends its questions whole (subscribeQuestions): a card that
   * answers in the page offers Allow only once it shows one.
   */
  get questionsWhole(): boolean {
    return typeof this.t.subscribeQuestions === 'function';
  }

  /** The notes folder is chosen in a native dialog (else the page asks for its path). */
  get choosesFolderInDialog(): boolean {
    return this.t.choosesFolderInDialog;
  }

  /** Startup: subscribe, run the doctor, load sessions, open the newest. */
  async start(): Promise<void> {
    this.unsubscribe = this.t.subscribe(
      (evs) => this.onEvents(evs),
      (list) => this.onSessions(list),
      () => void this.resync(),
    );
    this.unsubscribeQuestions = this.t.subscribeQuestions?.((q) => this.onQuestion(q)) ?? null;
    this.unsubscribeHealth = this.t.subscribeHealth?.((r) => this.onHealth(r)) ?? null;
    const doctor = this.recheck();
    const notes = this.loadNotesFolder();
    const choicesBefore = this.choices;
    try {
      const list = chats(await this.t.listSessions());
      this.listed = new Set(list.map((s) => s.id));
      this.sessions = list;
    } catch (e) {
      this.error = `Could not load your chats: ${message(e)}`;
    }
    this.listLoaded = true;
    // The composer takes words before the list is here: what the user began
    // in the new chat (typed, sent or opened) is never switched away from.
    const userBegan = this.choices !== choicesBefore || this.drafts.has('');
    if (this.sessions.length > 0 && this.activeId === null && !userBegan) await this.show(this.sessions[0].id);
    this.focusRequest++;
    await Promise.all([doctor, notes]);
  }

  /** Reads the notes folder from the host. */
  async loadNotesFolder(): Promise<void> {
    try {
      this.notesDir = await this.t.notesFolder();
      this.notesDirError = null;
    } catch (e) {
      this.notesDirError = message(e);
    }
  }

  /**
   * Chooses the notes folder: the native dialog in the desktop window (a
   * cancel changes nothing), else the absolute `path` the user typed.
   * Resolves with null when done (or cancelled), else with the host's
   * sentence for the user.
   */
  async chooseNotesFolder(path?: string): Promise<string | null> {
    if (this.choosingFolder) return null;
    this.choosingFolder = true;
    try {
      const dir = await this.t.chooseNotesFolder(path);
      if (dir) {
        this.notesDir = dir;
        this.notesDirError = null;
      }
      return null;
    } catch (e) {
      return message(e);
    } finally {
      this.choosingFolder = false;
    }
  }

  dismissNotesHint(): void {
    this.notesHintDismissed = true;
  }

  /**
   * Asks again after a run the model answered with nothing: `text` (the
   * user's last message, kept on the error item) is sent as a new request
   * (docs/PROTOCOL.md, "Retry"). False if it could not be sent.
   */
  retry(text: string): Promise<boolean> {
    return this.send(text, 'follow_up');
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unsubscribeQuestions?.();
    this.unsubscribeQuestions = null;
    this.unsubscribeHealth?.();
    this.unsubscribeHealth = null;
  }

  /** Runs the health checks now ("Check again"); the answer replaces the report. */
  async recheck(): Promise<void> {
    this.checking = true;
    try {
      this.onHealth(await this.t.doctor());
    } catch (e) {
      this.doctorError = message(e);
    } finally {
      this.checking = false;
    }
  }

  /** A new report: a banner dismissed for other failures shows again. */
  private onHealth(r: DoctorReport): void {
    const failing = (x: DoctorReport | null) => (x?.checks ?? []).filter((c) => !c.ok).map((c) => `${c.name}\n${c.detail}`).join('\n');
    if (failing(r) !== failing(this.doctor)) this.bannerDismissed = false;
    // The first screen gave way to the chat: the composer takes the keyboard.
    const ready = firstRunOf(this.doctor) !== null && firstRunOf(r) === null;
    this.doctor = r;
    if (ready) this.focusRequest++;
    this.doctorError = null;
  }

  /** A question the window is about to ask: its chat is opened, so its card can show it. */
  private onQuestion(q: Question): void {
    this.windowQuestions = [...this.windowQuestions.filter((x) => x.id !== q.id), q];
    if (q.session && q.session !== this.activeId) void this.select(q.session);
  }

  /** The window's question about the calls of the permission `item`, or null. */
  questionFor(item: Item): Question | null {
    const ids = (item.permission?.calls ?? []).map((c) => c.id);
    if (ids.length === 0) return null;
    return (
      this.windowQuestions.find((q) => {
        const qs = (q.calls ?? []).map((c) => c.id);
        return qs.length === ids.length && qs.every((id) => ids.includes(id));
      }) ?? null
    );
  }

  /**
   * The card has shown question `q` in full: Go may open its dialog. A
   * question that closed meanwhile has nothing left to open; that is not an
   * error for the user.
   */
  async questionShown(q: Question): Promise<void> {
    try {
      await this.t.questionShown?.(q.id ?? '');
    } catch {
      // Closed meanwhile (answered by the deadline, or the request stopped): the card says so.
    }
  }

  /** Forgets a window question whose card has closed. */
  forgetQuestion(q: Question): void {
    this.windowQuestions = this.windowQuestions.filter((x) => x.id !== q.id);
  }

  /** Opens the chat the user chose (the sidebar, a search hit, a new chat). */
  async select(id: string | null): Promise<void> {
    this.choices++;
    await this.show(id);
  }

  private async show(id: string | null): Promise<void> {
    this.focusRequest++;
    if (id !== this.activeId) {
      // Keyed by seq: meaningless in another chat.
      this.answerError = null;
      this.editRequest = null;
    }
    if (id === null) {
      this.loadToken++;
      this.inherited = [];
      this.awaitingAfter = null;
      this.activeId = null;
      this.conv = null;
      this.pending = null;
      this.loading = false;
      return;
    }
    if (id === this.activeId && this.conv) return;
    this.awaitingAfter = null;
    this.activeId = id;
    this.conv = emptyConversation(id);
    this.inherited = [];
    await Promise.all([this.load(id, []), this.loadInherited(id)]);
  }

  /** Loads the parts of branch `id`'s history that come from its ancestors. */
  private async loadInherited(id: string): Promise<void> {
    const token = ++this.partsToken;
    const parts = lineage(this.sessions, id).slice(0, -1);
    const out: InheritedPart[] = [];
    for (const p of parts) {
      const key = `${p.session}@${p.upTo}`;
      let conv = this.parts.get(key);
      if (!conv) {
        try {
          const evs = await this.t.events(p.session, 0);
          conv = foldAll(p.session, evs.filter((e) => e.seq <= p.upTo));
          this.parts.set(key, conv);
        } catch (e) {
          if (token === this.partsToken) this.error = `Could not load the start of this branch: ${message(e)}`;
          return;
        }
      }
      out.push({ ...p, items: settledItems(conv.items) });
    }
    if (token === this.partsToken && this.activeId === id) this.inherited = out;
  }

  private switchersNow(): Map<string, Switcher> {
    const id = this.activeId;
    if (!id) return new Map();
    const parts: Part[] = [...this.inherited, { session: id, upTo: Infinity }];
    const keys = [...this.inherited.map((p) => p.items.map((i) => i.key)), (this.conv?.items ?? []).map((i) => i.key)];
    return switchers(this.sessions, parts, keys);
  }

  /** Opens another version of a message (a switcher's arrow). */
  switchTo(id: string): Promise<void> {
    return this.select(id);
  }

  /**
   * Resends the user message at `seq` of `session` (the active one or one
   * its history comes from) with `text`, as a new branch, and opens it.
   * False if it could not be done (the sentence is in `error`).
   */
  editMessage(session: string, seq: number, text: string): Promise<boolean> {
    if (!text.trim()) return Promise.resolve(false);
    return this.branch('edit', () => this.t.editMessage(session, seq, text, newIdempotencyKey()));
  }

  /** Asks again for the reply whose item has key `seq` in `session`, as a new branch, and opens it. */
  regenerate(session: string, seq: number): Promise<boolean> {
    return this.branch('regenerate', () => this.t.regenerate(session, seq, newIdempotencyKey()));
  }

  private async branch(what: 'edit' | 'regenerate', ask: () => Promise<BranchResult>): Promise<boolean> {
    if (this.branching) return false;
    this.branching = true;
    this.error = null;
    try {
      const r = await ask();
      this.upsert(r.session);
      await this.select(r.session.id);
      return true;
    } catch (e) {
      this.error = what === 'edit' ? `Could not resend the edited message: ${message(e)}` : `Could not regenerate the reply: ${message(e)}`;
      return false;
    } finally {
      this.branching = false;
    }
  }

  /** Asks the model to continue the active conversation's reply that was cut off. */
  async continueReply(): Promise<boolean> {
    const id = this.activeId;
    if (!id || !this.canContinue) return false;
    return this.posting('continue', async () => id, (id) => this.t.continueRun(id, newIdempotencyKey()));
  }

  /** (Re)loads the active session's log from conv.lastSeq + 1, then folds `extra`. */
  private async load(id: string, extra: QEvent[]): Promise<void> {
    const token = ++this.loadToken;
    this.pending = extra.slice();
    this.loading = true;
    const from = (this.conv?.session === id ? this.conv.lastSeq : -1) + 1;
    let loaded: QEvent[] = [];
    try {
      loaded = await this.t.events(id, from);
    } catch (e) {
      if (token === this.loadToken) this.error = `Could not load this chat: ${message(e)}`;
    }
    if (token !== this.loadToken) return; // another load took over
    const base = this.conv?.session === id ? this.conv : emptyConversation(id);
    this.conv = fold(fold(base, loaded), this.pending ?? []);
    this.pending = null;
    this.loading = false;
  }

  private onEvents(evs: QEvent[]): void {
    const id = this.activeId;
    if (!id || !this.conv) return;
    const mine = evs.filter((e) => e && e.session === id);
    if (mine.length === 0) return;
    if (this.pending) {
      this.pending.push(...mine);
      return;
    }
    if (hasGap(this.conv, mine)) {
      void this.load(id, mine);
      return;
    }
    this.conv = fold(this.conv, mine);
  }

  private onSessions(all: Session[]): void {
    const list = chats(all);
    const before = this.sessions;
    const listedBefore = this.listed;
    this.listed = new Set(list.map((s) => s.id));
    this.sessions = list;
    const id = this.activeId;
    if (id === null || this.listed.has(id)) return;
    if (listedBefore.has(id)) {
      // The host listed it before and not any more: deleted elsewhere.
      void this.select(list[0]?.id ?? null);
    } else {
      // Created here and not yet in the host's list (a list that predates
      // it): keep showing it.
      const mine = before.find((s) => s.id === id);
      if (mine) this.sessions = [mine, ...list];
    }
  }

  /** After the live stream reconnected: fetch what may have been missed. */
  async resync(): Promise<void> {
    try {
      this.onSessions(await this.t.listSessions());
    } catch {
      /* the next list event will do */
    }
    if (this.activeId && !this.pending) await this.load(this.activeId, []);
  }

  private upsert(s: Session): void {
    const rest = this.sessions.filter((x) => x.id !== s.id);
    const i = this.sessions.findIndex((x) => x.id === s.id);
    if (i < 0) this.sessions = [s, ...rest];
    else this.sessions = this.sessions.map((x) => (x.id === s.id ? s : x));
  }

  /**
   * "+ New chat": opens the empty draft, and creates nothing — the chat is
   * created by its first message (`send`), so clicking twice, or leaving
   * the draft, never leaves an empty "New chat" behind. The draft's text is
   * kept while the user looks at other chats (`draftOf`).
   */
  async newChat(): Promise<void> {
    this.error = null;
    await this.select(null);
  }

  /** The unsent text of chat `id` (null: the new chat's draft), kept across switching chats. */
  /** An example the empty chat offered and the user took: the composer puts it in its box (`n` tells two apart). */
  suggestion = $state.raw<{ text: string; n: number } | null>(null);

  /** Puts `text` in the message box for the user to send or change (the empty chat's examples). */
  suggest(text: string): void {
    this.suggestion = { text, n: (this.suggestion?.n ?? 0) + 1 };
  }

  draftOf(id: string | null): string {
    return this.drafts.get(id ?? '') ?? '';
  }

  /** Keeps the composer's unsent text for chat `id` (null: the new chat's draft). */
  keepDraft(id: string | null, text: string): void {
    if (text) this.drafts.set(id ?? '', text);
    else this.drafts.delete(id ?? '');
  }

  /**
   * Opens chat `session` and brings the message of event `seq` into view,
   * marked for a moment (the search palette's Enter): `jump` says which,
   * until the conversation has shown it (`jumped`).
   */
  async jumpTo(session: string, seq: number): Promise<void> {
    this.jump = { session, seq, n: ++this.jumps };
    await this.select(session);
  }

  /** The conversation has brought the jump's message into view. */
  jumped(): void {
    this.jump = null;
  }

  /**
   * Sends `text` as one new user message (with a key of its own); creates a
   * session first when none is open (the new chat's draft). While a request is going, `intent` says
   * whether it joins it ('steer', the default) or waits for the next one
   * ('follow_up'); otherwise it is always a follow-up. False if it failed.
   */
  async send(text: string, intent: Intent = 'steer'): Promise<boolean> {
    if (!text.trim()) return false;
    this.choices++;
    const mode: Intent = this.activeId && this.runGoing ? intent : 'follow_up';
    const key = newIdempotencyKey();
    return this.posting(
      'send',
      async () => {
        if (this.activeId) return this.activeId;
        // Created untitled: Quire names it from this first message (an
        // automatic title the user's own rename always replaces).
        const s = await this.t.newSession('');
        this.upsert(s);
        await this.select(s.id);
        return s.id;
      },
      (id) => this.t.send(id, text, key, mode),
    );
  }

  /**
   * Posts an input to the session `target` names (made first if need be)
   * with `post`: Stop is on from the moment it is on its way until the run
   * it opens has ended. False if it failed (`Could not <what>: …` in error).
   */
  private async posting(what: string, target: () => Promise<string>, post: (id: string) => Promise<unknown>): Promise<boolean> {
    this.error = null;
    this.sending = true;
    try {
      const id = await target();
      const before = this.conv?.session === id ? this.conv.lastSeq : -1;
      await post(id);
      if (this.activeId === id) this.awaitingAfter = before;
      return true;
    } catch (e) {
      this.error = `Could not ${what}: ${message(e)}`;
      return false;
    } finally {
      this.sending = false;
    }
  }

  async cancel(): Promise<void> {
    const id = this.activeId;
    if (!id) return;
    try {
      await this.t.cancel(id);
    } catch (e) {
      this.error = `Could not stop: ${message(e)}`;
    }
  }

  /**
   * Answers the open permission question `item` of the active session: all of
   * its calls, allowed or not, with an optional reason. False if it failed
   * (the sentence is in answerError, e.g. the question closed meanwhile).
   */
  async answer(item: Item, allowed: boolean, feedback = ''): Promise<boolean> {
    const id = this.activeId;
    const p = item.permission;
    if (!id || !p || this.answering !== null) return false;
    this.answering = item.key;
    this.answerError = null;
    try {
      await this.t.answer(
        id,
        p.calls.map((c) => c.id),
        allowed,
        feedback.trim(),
      );
      return true;
    } catch (e) {
      this.answerError = { key: item.key, text: message(e) };
      return false;
    } finally {
      this.answering = null;
    }
  }

  async rename(id: string, title: string): Promise<boolean> {
    const t = title.trim();
    const old = this.sessions.find((s) => s.id === id);
    if (!t || t === old?.title) return true;
    try {
      this.upsert(await this.t.renameSession(id, t));
      return true;
    } catch (e) {
      this.error = `Could not rename: ${message(e)}`;
      return false;
    }
  }

  async remove(id: string): Promise<boolean> {
    try {
      await this.t.deleteSession(id);
    } catch (e) {
      this.error = `Could not delete: ${message(e)}`;
      return false;
    }
    this.sessions = this.sessions.filter((s) => s.id !== id);
    if (this.activeId === id) await this.select(this.sessions[0]?.id ?? null);
    return true;
  }

  dismissBanner(): void {
    this.bannerDismissed = true;
  }

  dismissError(): void {
    this.error = null;
  }
}

/**
 * The user's chats of a host's sessions list: a task queue worker's session
 * (kind `worker`) is the batch's, shown from the batch view, never listed
 * among the chats nor opened as the newest one.
 */
export function chats(list: readonly Session[]): Session[] {
  return list.filter((s) => !s.kind);
}

/**
 * Calls `refresh` a moment after the sessions list changes (a request
 * started or ended), never for the list the panel opened with: a panel
 * with its own state (memory, notes) shows what a conversation changed
 * meanwhile without being reopened. Call it while a component is set up.
 */
export function refreshOnSessions(sessions: () => readonly Session[], refresh: () => void, delayMs: number): void {
  let seen = false;
  $effect(() => {
    void sessions();
    if (!seen) {
      seen = true;
      return;
    }
    const t = setTimeout(refresh, delayMs);
    return () => clearTimeout(t);
  });
}
