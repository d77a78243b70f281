// Settings' MCP section: the servers the user plugged in, each with its
// state, stderr and tools, kept current from the host's stream; adding a
// server (a command with arguments and environment, or an address), pasting
// an mcp.json, and the choice per tool. The words for a tool's effects and
// for the declarations' share of the model's context are made here, at the
// edge, once for the section and its tests.
import type { MCPServer, MCPServerConfig, MCPTool } from './protocol';
import type { MCPAction, MCPTransport, McpImport, McpServer } from './transport/mcp';

/** The settings spelling of a tool that only reads (MCPTool.effects); any other can change things. */
export const EFFECTS_READ = 'read';
/** The settings spelling of a tool that may change things and reach the network: asked first. */
export const EFFECTS_WRITE = 'write+net';

/**
 * The share of the model's context the enabled declarations may take
 * before the section warns: past it, little is left for the notes and the
 * conversation themselves.
 */
export const LARGE_SHARE = 0.2;

/** How many lines of a server's stderr the section shows (the host keeps up to 64 KiB). */
export const STDERR_LINES = 40;

/** A tool's effects in words. */
export function effectWords(t: Pick<MCPTool, 'effects'>): string {
  return t.effects === EFFECTS_READ ? 'Reads only' : 'Can change things — asks first';
}

/** What the user changed of a tool's declared effects, in words ("" for nothing). */
export function choiceWords(t: Pick<MCPTool, 'readOnly' | 'override' | 'loosened'>): string {
  if (t.loosened) return 'You loosened it: it runs without asking, though its server did not say it only reads.';
  if (t.readOnly && t.override && t.override !== EFFECTS_READ) return 'You tightened it: Quire asks before each call, though its server says it only reads.';
  return '';
}

/** What a loosening means, for the confirm that asks before it. */
export function loosenWords(t: Pick<MCPTool, 'server' | 'tool' | 'destructive'>): string {
  const said = t.destructive ? 'Its server says it can destroy things.' : 'Its server did not say it only reads.';
  return `${said} Treating ${t.server}'s ${t.tool} as reading only lets the model call it whenever it likes, with any arguments, and Quire will not ask you first.`;
}

/** A server's state as its badge says it. */
export function stateWords(s: Pick<MCPServer, 'state'> & { config: Pick<MCPServerConfig, 'enabled'> }): string {
  switch (s.state) {
    case 'running':
      return 'Running';
    case 'starting':
      return 'Starting…';
    case 'failed':
      return 'Failed';
  }
  return s.config.enabled ? 'Stopped' : 'Disabled';
}

/** The actions a server in this state offers. */
export function actionsOf(s: Pick<MCPServer, 'state'>): MCPAction[] {
  switch (s.state) {
    case 'running':
    case 'starting':
      return ['restart', 'stop'];
  }
  return ['start'];
}

/** The last `n` lines of a stderr tail (without the empty line after its last newline). */
export function stderrTail(text: string | undefined, n = STDERR_LINES): string {
  if (!text) return '';
  const lines = text.replace(/\n+$/, '').split('\n');
  return lines.slice(-n).join('\n');
}

/**
 * The names of a server's environment variables or headers, as the section
 * shows them ("" when none): Go sends their values masked — they are often
 * tokens — so only the names are shown, said so.
 */
export function secretNames(c: Pick<MCPServerConfig, 'env' | 'headers'>): string {
  const [kind, names] = c.headers && Object.keys(c.headers).length ? ['Headers', c.headers] : ['Environment', c.env ?? {}];
  const keys = Object.keys(names).sort();
  return keys.length ? `${kind}: ${keys.join(', ')} (values hidden)` : '';
}

/** "1,240 tokens" (12% of the context when numCtx is known). */
export function tokenWords(tokens: number, numCtx: number): string {
  const t = `${tokens.toLocaleString('en-US')} ${tokens === 1 ? 'token' : 'tokens'}`;
  if (numCtx <= 0 || tokens <= 0) return t;
  const pct = Math.round((tokens / numCtx) * 100);
  return `${t} (${pct < 1 ? 'under 1' : pct}% of the context)`;
}

/** The warning when the enabled declarations take a large share of the context, or "". */
export function shareWarning(tokens: number, numCtx: number): string {
  if (numCtx <= 0 || tokens / numCtx < LARGE_SHARE) return '';
  const pct = Math.round((tokens / numCtx) * 100);
  return `The enabled MCP tools' declarations take ${pct}% of the model's ${numCtx.toLocaleString('en-US')}-token context in every request, leaving less for your notes and the conversation. Disable the tools you do not need, or raise the context length above.`;
}

/** The add form as the user typed it. */
export interface ServerForm {
  name: string;
  kind: 'stdio' | 'http';
  command: string;
  /** One argument a line, so an argument may hold spaces. */
  args: string;
  /** KEY=VALUE a line. */
  env: string;
  url: string;
}

export function emptyForm(): ServerForm {
  return { name: '', kind: 'stdio', command: '', args: '', env: '', url: '' };
}

/** The form as a server's config, or the sentence saying what to fix. */
export function formConfig(f: ServerForm): MCPServerConfig | string {
  const name = f.name.trim();
  if (!name) return 'Give the server a name, like files (letters, digits, - and _).';
  if (f.kind === 'http') {
    const url = f.url.trim();
    if (!/^https?:\/\/\S+$/.test(url)) return 'Type the server’s address, like http://127.0.0.1:3001/mcp.';
    return { name, url, enabled: true };
  }
  const command = f.command.trim();
  if (!command) return 'Type the command that starts the server, like npx or /usr/local/bin/my-server.';
  const args = f.args.split('\n').filter((a) => a.trim() !== '');
  const env: Record<string, string> = {};
  for (const line of f.env.split('\n')) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!key) return `“${line.trim()}” is not KEY=VALUE: write one variable a line, like API_KEY=… .`;
    env[key] = line.slice(eq + 1);
  }
  const c: MCPServerConfig = { name, command, enabled: true };
  if (args.length) c.args = args;
  if (Object.keys(env).length) c.env = env;
  return c;
}

/** The section's state over a host's MCP methods. */
export class McpStore {
  servers = $state<McpServer[]>([]);
  /** Why the configuration file could not be read ("" when it was). */
  problem = $state('');
  /** An action's failure, in the host's words. */
  error = $state<string | null>(null);
  loading = $state(false);
  /** What the last paste did. */
  imported = $state<McpImport | null>(null);
  /** The servers whose action is under way (their buttons wait). */
  busy = $state<string[]>([]);

  constructor(private readonly host: MCPTransport) {}

  /** The enabled, offered tools' declarations across servers. */
  get tokens(): number {
    return this.servers.reduce((n, s) => n + (s.tokens ?? 0), 0);
  }

  /** True when a loosening's yes is asked again in a native dialog (the window). */
  get confirmsInDialog(): boolean {
    return this.host.confirmsLoosenInDialog;
  }

  async load() {
    this.loading = true;
    try {
      const l = await this.host.mcpServers();
      this.servers = l.servers;
      this.problem = l.problem ?? '';
      this.error = null;
    } catch (e) {
      this.error = (e as Error).message;
    } finally {
      this.loading = false;
    }
  }

  /** Follows the host's changes; returns the unsubscribe function. */
  subscribe(): () => void {
    return this.host.subscribeMcp((s) => this.take(s));
  }

  /** Puts a server's new state in its place (a new name is added, in name order). */
  take(s: McpServer) {
    const i = this.servers.findIndex((x) => x.config.name === s.config.name);
    if (i >= 0) this.servers[i] = s;
    else this.servers = [...this.servers, s].sort((a, b) => a.config.name.localeCompare(b.config.name));
  }

  private async act(name: string, f: () => Promise<McpServer | void>): Promise<boolean> {
    this.busy = [...this.busy, name];
    try {
      const s = await f();
      if (s) this.take(s);
      this.error = null;
      return true;
    } catch (e) {
      this.error = (e as Error).message;
      return false;
    } finally {
      this.busy = this.busy.filter((n) => n !== name);
    }
  }

  /** Adds the form's server; resolves with the sentence to show beside the form ("" when added). */
  async add(f: ServerForm): Promise<string> {
    const c = formConfig(f);
    if (typeof c === 'string') return c;
    try {
      this.take(await this.host.putMcpServer(c));
      this.error = null;
      return '';
    } catch (e) {
      return (e as Error).message;
    }
  }

  async paste(text: string) {
    if (!text.trim()) {
      this.error = 'Paste an mcp.json first: {"mcpServers": {"name": {"command": …, "args": […]}}}.';
      return;
    }
    try {
      this.imported = await this.host.importMcp(text);
      this.error = null;
      await this.load();
    } catch (e) {
      this.error = (e as Error).message;
    }
  }

  control(name: string, action: MCPAction) {
    return this.act(name, () => this.host.controlMcpServer(name, action));
  }

  async remove(name: string) {
    if (await this.act(name, () => this.host.removeMcpServer(name))) {
      this.servers = this.servers.filter((s) => s.config.name !== name);
    }
  }

  setEnabled(t: MCPTool, enabled: boolean) {
    return this.act(t.server, () => this.host.setMcpTool({ server: t.server, tool: t.tool, enabled, effects: t.override ?? '' }));
  }

  /** Asks before every call of a tool its server says only reads. */
  tighten(t: MCPTool) {
    return this.act(t.server, () => this.host.setMcpTool({ server: t.server, tool: t.tool, enabled: t.enabled, effects: EFFECTS_WRITE }));
  }

  /** Lets a tool run without asking: only after the user's confirm (loosenWords). */
  loosen(t: MCPTool) {
    return this.act(t.server, () => this.host.setMcpTool({ server: t.server, tool: t.tool, enabled: t.enabled, effects: EFFECTS_READ }));
  }

  /** Back to the effects the server declared. */
  declared(t: MCPTool) {
    return this.act(t.server, () => this.host.setMcpTool({ server: t.server, tool: t.tool, enabled: t.enabled, effects: '' }));
  }
}
