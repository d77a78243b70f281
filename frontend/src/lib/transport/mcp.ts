// The MCP servers' part of the Transport (transport.ts extends it): the
// servers the user plugged in, their state and stderr, their tools and the
// choice per tool — the same methods over Wails bindings (wails.ts) and
// HTTP + SSE (http.ts). Every method rejects with an Error whose message is
// a sentence for the user.
import type { MCPImport, MCPImportIssue, MCPList, MCPServer, MCPServerConfig, MCPTool, MCPToolChoice } from '../protocol';


/** What a server can be told to do. */
export type MCPAction = 'start' | 'stop' | 'restart';

/** A server as the page reads it: its arrays never null. */
export type McpServer = Omit<MCPServer, 'tools'> & { tools: MCPTool[] };
/** The list as the page reads it. */
export type McpList = Omit<MCPList, 'servers'> & { servers: McpServer[] };
/** A paste's outcome as the page reads it. */
export interface McpImport {
  added: string[];
  refused: MCPImportIssue[];
}

export interface MCPTransport {
  /**
   * True in the desktop window: loosening a tool (letting one the server
   * did not declare read-only run without a question) asks once more in a
   * native dialog, which the page cannot click, and resolves with the
   * server unchanged when the user said No there. False in a browser: the
   * page's own confirm is the user's yes.
   */
  readonly confirmsLoosenInDialog: boolean;
  /** Every configured server with its state, stderr tail and tools. */
  mcpServers(): Promise<McpList>;
  /** Adds a server or replaces the one of its name; resolves once its start is under way. */
  putMcpServer(c: MCPServerConfig): Promise<McpServer>;
  /** Stops a server and forgets its configuration. */
  removeMcpServer(name: string): Promise<void>;
  /** Takes a pasted mcp.json: what was added, and what was refused and why. */
  importMcp(text: string): Promise<McpImport>;
  controlMcpServer(name: string, action: MCPAction): Promise<McpServer>;
  /** Saves the user's choice for one tool (enabled; effects "" / "read" / "write+net"). */
  setMcpTool(c: MCPToolChoice): Promise<McpServer>;
  /** Every server's changes, in order per server. Returns an unsubscribe function. */
  subscribeMcp(onServer: (s: McpServer) => void): () => void;
}

/** A server from a host, with the arrays and maps the page relies on (Go writes empty ones as null). */
export function mcpServer(s: MCPServer): McpServer {
  return { ...s, config: { ...s.config, args: s.config?.args ?? [] }, tools: s.tools ?? [] };
}

/** A list from a host, each server as mcpServer reads it. */
export function mcpList(l: MCPList | null | undefined): McpList {
  return { ...l, servers: (l?.servers ?? []).map(mcpServer), tokens: l?.tokens ?? 0 };
}

/** An import's outcome from a host, with both arrays. */
export function mcpImport(r: MCPImport | null | undefined): McpImport {
  return { added: r?.added ?? [], refused: r?.refused ?? [] };
}
