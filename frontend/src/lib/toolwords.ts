// Tool names in plain words: what a person sees of a call is what it does
// ("Listed the notes"), the raw name one click away (a title, a details).
// A name this map does not know (an MCP server's, a new tool) is shown with
// its underscores as spaces, never dropped. The words are Go's
// (kernel/protocol ToolPhrases), so the terminal says the same.

import { TOOL_OUTCOMES, TOOL_PHRASES } from './generated/protocol';

/** What a call of tool `name` does, in a short phrase. */
export function toolPhrase(name: string): string {
  const known = TOOL_PHRASES[name];
  if (known) return known;
  // An MCP tool is "server__tool".
  const [server, tool] = name.includes('__') ? name.split('__', 2) : ['', name];
  const words = tool.replace(/_/g, ' ').trim() || name;
  return server ? `${words} (${server})` : words;
}


/** A call's arguments as "key: value" pairs, values shortened. */
export function argumentWords(json: string): string {
  try {
    const v = JSON.parse(json) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return '';
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => {
        const s = typeof x === 'string' ? x : JSON.stringify(x);
        return `${k}: ${s.length > 40 ? s.slice(0, 39) + '…' : s}`;
      })
      .join(', ');
  } catch {
    return '';
  }
}

/**
 * A search Quire tried, as memory/learn.go records it for the model
 * (`name {args} → status: first line`), in words; text of any other shape
 * is returned as it is.
 */
export function attemptWords(text: string): string {
  const m = /^([A-Za-z0-9_]+) (\{.*\}) → ([a-z_]+): ?(.*)$/s.exec(text);
  if (!m) return text;
  const [, name, args, status, said] = m;
  const a = argumentWords(args);
  const head = a ? `${toolPhrase(name)} (${a})` : toolPhrase(name);
  const outcome = TOOL_OUTCOMES[status] ?? status.replace(/_/g, ' ');
  return said ? `${head}: ${outcome}. ${said}` : `${head}: ${outcome}.`;
}

/**
 * Text with its Markdown marks taken out, for a line that shows words, not
 * a rendered note (a search hit, a passage's snippet): "**Water** the
 * [basil](x.md)" reads "Water the basil". Each piece of a snippet is passed
 * on its own, so a mark is removed wherever the piece boundaries fall.
 */
export function plainText(text: string): string {
  return text
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1') // [text](dest), ![alt](src)
    .replace(/\[\[([^\]|\n]*\|)?([^\]\n]*)\]\]/g, '$2') // [[target|text]] -> text
    .replace(/(^|\n)\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+\[[ xX]\]\s+|[-*+]\s+|\d+[.)]\s+)/g, '$1') // heading, quote, list marks
    .replace(/(\*\*|__|~~|`+)/g, '') // bold, strike, code
    .replace(/(^|[\s(])[*_]([^*_\s][^*_\n]*?)[*_](?=[\s.,;:!?)]|$)/g, '$1$2'); // *em*, _em_
}
