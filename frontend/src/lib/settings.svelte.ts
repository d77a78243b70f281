// The Settings screen's state and the only code that talks to the host
// about settings. The screen edits a draft; Save sends every field, and the
// host (the settings owner) checks each against its bound, saves, and
// answers with the screen as it now is — or names the field it refused,
// whose sentence is shown next to it. Nothing is saved until Save.
//
// The Ollama address is checked as it is typed: the last keystroke starts a
// check after `debounceMs`, and only the newest check's answer is shown.
// The theme is applied at once as a preview (the page's data-theme), and
// put back when the screen closes without saving.
import type { ModelInfo, OllamaCheck, PermissionProfile, RunnerModel, SettingsScreen, Theme, UserSettings } from './protocol';
import type { ModelsTransport } from './transport/models';
import { SettingRefused, type SettingsTransport } from './transport/settings';

export const SETTINGS_CONTEXT = Symbol('settings');

/** What the screen says of when a change takes effect (the run's snapshot froze the rest). */
export const APPLY_NOTE = 'Changes apply to the next reply; a reply in progress keeps the settings it started with.';

/** One line on what each permission profile lets Quire do (kernel/tool's Decide). */
export const PROFILE_LINES: Record<PermissionProfile, { title: string; line: string }> = {
  minimal: { title: 'Read only', line: 'Quire reads notes and documents; every change, memory write, network or command use is refused.' },
  ask: { title: 'Ask me (default)', line: 'Quire reads freely and asks you before each change to your notes or its memory.' },
  write: { title: 'Write notes', line: 'Quire also changes notes without asking; memory, network and commands still ask.' },
};

/** The words of each theme choice. */
export const THEME_LABELS: Record<Theme, string> = { system: 'Like the system', light: 'Light', dark: 'Dark' };

/** The runners Quire speaks to: Ollama's own API, or an OpenAI-compatible server. */
export const RUNNER_OLLAMA = 'ollama';
export const RUNNER_OPENAI = 'openai';

/**
 * Whether a runner address names this computer (localhost or a loopback
 * address), as config.Loopback judges it; an address that cannot be read
 * counts as this computer, since the host refuses it anyway.
 */
export function onThisComputer(address: string): boolean {
  const raw = address.trim();
  if (raw === '') return true;
  let host: string;
  try {
    host = new URL(raw.includes('://') ? raw : `http://${raw}`).hostname.toLowerCase();
  } catch {
    return true;
  }
  host = host.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '0:0:0:0:0:0:0:1';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Shows a theme on the page: data-theme on the root element is "light" or
 * "dark" (app.css keys its colours on it); "system" follows the system's
 * preference, also when it changes. Returns what stops following it.
 */
export function showTheme(theme: Theme, root: HTMLElement = document.documentElement, win: Window = window): () => void {
  const query = theme === 'system' && typeof win.matchMedia === 'function' ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  const set = () => {
    root.dataset.theme = theme === 'system' ? (query?.matches ? 'dark' : 'light') : theme;
    root.dataset.themeChoice = theme;
  };
  set();
  query?.addEventListener('change', set);
  return () => query?.removeEventListener('change', set);
}

/** Where the page keeps the last saved theme, to show it before the host answers. */
export const THEME_KEY = 'quire-theme';

/** A small store of strings (the page's localStorage; tests hand in a map). */
export type ThemeMemory = Pick<Storage, 'getItem' | 'setItem'>;

function pageStorage(): ThemeMemory | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage refused (a private window): the system's theme until the host answers
  }
}

const THEMES: readonly Theme[] = ['system', 'light', 'dark'];

export interface SettingsOptions {
  /** How long typing in the address waits before it is checked. */
  debounceMs?: number;
  /** Shows a theme (showTheme); tests hand in a recorder. */
  theme?: (t: Theme) => () => void;
  /** Keeps the saved theme between starts (the page's localStorage by default). */
  memory?: ThemeMemory | null;
}

export class SettingsStore {
  /** The screen is open. */
  open = $state(false);
  /** The settings as the host holds them, with what the choices need. */
  screen = $state.raw<SettingsScreen | null>(null);
  /** What the user is editing; null until loaded. */
  draft = $state<UserSettings | null>(null);
  /** The installed models with what each can do (the models API), for the choices. */
  installed = $state.raw<ModelInfo[]>([]);
  loading = $state(false);
  saving = $state(false);
  /** The last Save was kept and nothing changed since. */
  saved = $state(false);
  /** A sentence per refused field (its UserSettings name). */
  errors = $state<Record<string, string>>({});
  /** Why loading or saving failed, not tied to a field; null when it did not. */
  error = $state<string | null>(null);
  /** The answer of the newest address check; null before any. */
  check = $state.raw<OllamaCheck | null>(null);
  checking = $state(false);

  private checkSeq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopTheme: () => void = () => {};
  private readonly debounceMs: number;
  private readonly theme: (t: Theme) => () => void;
  private readonly memory: ThemeMemory | null;

  constructor(
    private readonly host: SettingsTransport & Partial<Pick<ModelsTransport, 'models'>>,
    opts: SettingsOptions = {},
  ) {
    this.debounceMs = opts.debounceMs ?? 400;
    this.theme = opts.theme ?? ((t) => showTheme(t));
    this.memory = opts.memory === undefined ? pageStorage() : opts.memory;
  }

  /** The theme saved at the last start, if the page kept it. */
  private remembered(): Theme {
    let t: string | null = null;
    try {
      t = this.memory?.getItem(THEME_KEY) ?? null;
    } catch {
      /* unreadable: the system's */
    }
    return THEMES.includes(t as Theme) ? (t as Theme) : 'system';
  }

  /** Shows the saved theme and keeps it for the next start. */
  private showSaved(t: Theme) {
    this.show(t);
    try {
      this.memory?.setItem(THEME_KEY, t);
    } catch {
      /* a full or refused storage only costs the next start a flash */
    }
  }

  /** Shows a theme, replacing the one shown. */
  private show(t: Theme) {
    this.stopTheme();
    this.stopTheme = this.theme(t);
  }

  /**
   * At start: shows the theme saved last time at once (the host's answer
   * asks Ollama about the model and may take seconds), then the one the
   * host holds.
   */
  async start(): Promise<void> {
    this.show(this.remembered());
    try {
      this.screen = await this.host.settings();
      this.showSaved(this.screen.settings.theme);
    } catch {
      /* the screen says what is wrong when it is opened */
    }
  }

  /** Opens the screen, loads what it shows, and checks the address in use. */
  async openScreen(): Promise<void> {
    this.open = true;
    await this.load();
    if (this.draft && this.open) void this.checkNow(this.draft.ollamaHost);
  }

  /** Closes the screen; an unsaved theme goes back to the saved one. */
  close(): void {
    this.open = false;
    this.cancelCheck();
    if (this.screen && this.draft && this.draft.theme !== this.screen.settings.theme) this.show(this.screen.settings.theme);
    this.draft = this.screen ? structuredClone(this.screen.settings) : null;
    this.errors = {};
  }

  async load(): Promise<void> {
    this.loading = true;
    this.error = null;
    try {
      this.take(await this.host.settings());
      this.saved = false;
    } catch (e) {
      this.error = message(e);
    } finally {
      this.loading = false;
    }
    await this.loadModels();
  }

  /** The installed models, when the host has the models API; a failure leaves the text fields. */
  private async loadModels(): Promise<void> {
    if (typeof this.host.models !== 'function') return;
    try {
      this.installed = (await this.host.models()).installed ?? [];
    } catch {
      this.installed = [];
    }
  }

  private take(s: SettingsScreen) {
    this.screen = s;
    this.draft = structuredClone(s.settings);
    this.errors = {};
  }

  /** Changes fields of the draft; the address is checked once typing pauses, the theme shown at once. */
  edit(patch: Partial<UserSettings>): void {
    if (!this.draft) return;
    Object.assign(this.draft, patch);
    this.saved = false;
    const errors = { ...this.errors };
    for (const k of Object.keys(patch)) delete errors[k];
    this.errors = errors;
    if (patch.theme) this.show(patch.theme);
    if (patch.ollamaHost !== undefined) this.scheduleCheck(patch.ollamaHost);
  }

  private cancelCheck() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.checkSeq++; // an answer on its way is no longer shown
    this.checking = false;
  }

  private scheduleCheck(address: string) {
    this.cancelCheck();
    this.timer = setTimeout(() => void this.checkNow(address), this.debounceMs);
  }

  /** Checks an address now; only the newest check's answer is kept. */
  async checkNow(address: string): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const seq = ++this.checkSeq;
    this.checking = true;
    let r: OllamaCheck;
    try {
      r = await this.host.checkOllama(address);
    } catch (e) {
      r = { address, ok: false, models: [], message: message(e) };
    }
    if (seq !== this.checkSeq) return;
    this.check = r;
    this.checking = false;
  }

  /** The draft differs from what the host holds. */
  get dirty(): boolean {
    return !!this.draft && !!this.screen && JSON.stringify(this.draft) !== JSON.stringify(this.screen.settings);
  }

  /** Sends every field; resolves true when the host kept them. */
  async save(): Promise<boolean> {
    if (!this.draft) return false;
    this.saving = true;
    this.error = null;
    this.errors = {};
    try {
      const kept = await this.host.saveSettings($state.snapshot(this.draft));
      this.take(kept);
      this.showSaved(kept.settings.theme);
      this.saved = true;
      return true;
    } catch (e) {
      if (e instanceof SettingRefused) this.errors = { [e.field]: e.message };
      else this.error = message(e);
      return false;
    } finally {
      this.saving = false;
    }
  }

  /** The draft chooses an OpenAI-compatible server rather than Ollama. */
  get openaiRunner(): boolean {
    return this.draft?.runner === RUNNER_OPENAI;
  }

  /** The draft's runner is not the one saved: its models are listed once it is saved. */
  get runnerPending(): boolean {
    const d = this.draft;
    const held = this.screen?.settings;
    if (!d || !held) return false;
    return d.runner !== held.runner || (d.runner === RUNNER_OPENAI && d.runnerUrl.trim() !== held.runnerUrl);
  }

  /** The draft's server is another machine: saving needs the user's explicit choice (runnerRemote). */
  get runnerOffThisComputer(): boolean {
    return this.openaiRunner && !onThisComputer(this.draft?.runnerUrl ?? '');
  }

  /** Chooses a runner: Ollama, or an OpenAI-compatible server at url. */
  chooseRunner(runner: string, url?: string): void {
    const patch: Partial<UserSettings> = { runner };
    if (url !== undefined) patch.runnerUrl = url;
    // Another address is another choice: the consent to send conversations is per address.
    if (url !== undefined && url !== this.draft?.runnerUrl) patch.runnerRemote = false;
    this.edit(patch);
  }

  /** The saved runner's models with what each can do, as the host said them. */
  get runnerModels(): RunnerModel[] {
    return this.screen?.runner?.models ?? [];
  }

  /** The saved runner is an OpenAI-compatible server, whose models are its own list's. */
  private get heldOpenAI(): boolean {
    return this.screen?.settings.runner === RUNNER_OPENAI;
  }

  /** What the installed list says of the model named (undefined when it is not installed). */
  private info(name: string | undefined): ModelInfo | undefined {
    return this.installed.find((m) => m.name === name);
  }

  /** Names offered for the chat model: the installed models that are not embedding-only. */
  get chatModels(): string[] {
    if (this.heldOpenAI) return this.runnerModels.filter((m) => !m.embeds).map((m) => m.name);
    const named = this.installed.filter((m) => !(m.capabilities ?? []).includes('embedding')).map((m) => m.name);
    return named.length > 0 ? named : (this.screen?.models ?? []);
  }

  /** Names offered for the embedding model: the installed embedding models. */
  get embedModels(): string[] {
    // A server that does not say which models embed offers them all.
    if (this.heldOpenAI) {
      const said = this.runnerModels.filter((m) => m.embeds);
      return (said.length > 0 ? said : this.runnerModels).map((m) => m.name);
    }
    return this.installed.filter((m) => (m.capabilities ?? []).includes('embedding')).map((m) => m.name);
  }

  /** Whether the chosen chat model can think (thinking is offered only then). */
  get canThink(): boolean {
    const d = this.draft;
    if (!d) return false;
    const m = this.info(d.model);
    if (m) return (m.capabilities ?? []).includes('thinking');
    return this.screen?.model.name === d.model && this.screen.model.canThink;
  }

  /** The longest context the chosen chat model takes (its trained length when known). */
  get maxNumCtx(): number {
    const d = this.draft;
    if (this.heldOpenAI) {
      const r = this.runnerModels.find((x) => x.name === d?.model);
      if (r && r.contextLength > 0) return r.contextLength;
      return this.screen?.limits.maxNumCtx ?? 8192;
    }
    const m = this.info(d?.model);
    if (m && m.contextLength > 0) return m.contextLength;
    if (this.screen && this.screen.model.name === d?.model) return this.screen.limits.maxNumCtx;
    return this.screen?.limits.maxNumCtx ?? 8192;
  }

  /** The flag or variable that set a setting at start, if one did. */
  pinnedBy(field: keyof UserSettings): string | undefined {
    return this.screen?.pinned?.[field];
  }
}
