// Citations: which passage an assistant's "[n]" points to. search_docs
// numbers its passages from 1 for the model (tools/searchdocs); the model
// cites them as [1], [2] in a later step. The page turns those into links
// that open the source at the cited lines. Pure; tested in
// test/citations.test.ts.
import type { CallState, Conversation, Item } from './conversation';
import { isObjectOf, type Citation, type SearchDocsData } from './protocol';

/** The tool whose results are citable. */
export const SEARCH_DOCS = 'search_docs';

/** A search_docs call's passages from its result's data, or null (not search_docs, not finished, not the shape). */
export function searchDocsHits(call: CallState): Citation[] | null {
  const data = call.data;
  if (call.name !== SEARCH_DOCS || call.phase !== 'finished' || !isObjectOf<SearchDocsData>(data) || !Array.isArray(data.hits)) return null;
  const out: Citation[] = [];
  for (const h of data.hits) {
    if (!isObjectOf<Citation>(h) || typeof h.n !== 'number' || typeof h.path !== 'string' || !h.path) continue;
    out.push({
      n: h.n,
      path: h.path,
      name: typeof h.name === 'string' && h.name ? h.name : h.path,
      headings: Array.isArray(h.headings) ? h.headings.filter((x): x is string => typeof x === 'string') : [],
      startLine: Number(h.startLine) || 0,
      endLine: Number(h.endLine) || 0,
      snippet: typeof h.snippet === 'string' ? h.snippet : '',
      score: Number(h.score) || 0,
      lexicalRank: Number(h.lexicalRank) || 0,
      vectorRank: Number(h.vectorRank) || 0,
      matched: Array.isArray(h.matched) ? h.matched.filter((x): x is string => typeof x === 'string') : [],
      similarity: Number(h.similarity) || 0,
    });
  }
  return out;
}

/**
 * The passages an item's text may cite, by number: those of the latest
 * search_docs call before the item in the conversation (the latest call's
 * numbering is the one the model just read). Calls of the item itself come
 * after its text, so they do not count.
 */
export function citationsFor(conv: Conversation | null, item: Item): Map<number, Citation> {
  let latest: Citation[] | null = null;
  for (const it of conv?.items ?? []) {
    if (it.key === item.key) break;
    for (const call of it.calls ?? []) latest = searchDocsHits(call) ?? latest;
  }
  return new Map((latest ?? []).map((c) => [c.n, c]));
}

/** The heading path of a passage, "Goals › Budget", or ''. */
export function headingsLabel(c: Citation): string {
  return (c.headings ?? []).join(' › ');
}

/**
 * Why a passage was found, compactly: "matched: zeppelin, budget · meaning
 * 0.71 · keyword rank 2 · meaning rank 5" — the query's words it holds,
 * its similarity under an embedding model, and each search's rank of it
 * (a part is left out when it does not apply). '' when nothing is known.
 */
export function whyLabel(c: Citation): string {
  const parts: string[] = [];
  if (c.matched?.length) parts.push(`matched: ${c.matched.join(', ')}`);
  if (c.similarity && c.similarity > 0) parts.push(`meaning ${c.similarity.toFixed(2)}`);
  if (c.lexicalRank > 0) parts.push(`keyword rank ${c.lexicalRank}`);
  if (c.vectorRank > 0) parts.push(`meaning rank ${c.vectorRank}`);
  return parts.join(' · ');
}
