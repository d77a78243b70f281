// The part of the Transport that looks across conversations (transport.ts
// extends it): the search over what was said (Ctrl+K) and exporting one
// conversation. The same methods over Wails bindings (wails.ts) and HTTP
// (http.ts). Every method rejects with an Error whose message is a sentence
// for the user.
import type { MessageHit, MessageSearch } from '../protocol';

/** What a conversation is exported as: Markdown, or its raw log as JSON lines. */
export type ExportFormat = 'md' | 'jsonl';

/** How an export ended: where the file went (a saved path or a download's name), or null when the user cancelled. */
export type Exported = { file: string; saved: boolean } | null;


/** The longest query read (characters), protocol.FindMaxQuery: the page stops the input there. */
export const FIND_MAX_QUERY = 200;

export interface ConversationsTransport {
  /**
   * The messages of every conversation holding all the words of `query`
   * (plain words: quotes, * or - are never search syntax), best first.
   */
  searchConversations(query: string, limit?: number): Promise<MessageSearch>;
  /**
   * Exports conversation `id`. In the desktop window a native save dialog
   * asks where (`saved` is true; null when the user cancelled); in a
   * browser the file is downloaded (`saved` false, `file` its name).
   */
  exportSession(id: string, format: ExportFormat): Promise<Exported>;
}

/** A search answer with the arrays the palette relies on. */
export function messageSearch(r: Partial<MessageSearch> | null | undefined, query: string): MessageSearch & { hits: MessageHit[] } {
  const hits = Array.isArray(r?.hits) ? r.hits : [];
  return {
    query: typeof r?.query === 'string' ? r.query : query,
    hits: hits.map((h) => ({ ...h, snippet: Array.isArray(h.snippet) ? h.snippet : [] })),
  };
}
