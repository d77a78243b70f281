// Branches as the page shows them: a pure reading of the sessions list
// (Session.parent / parentSeq, written by message.edit and
// message.regenerate, docs/PROTOCOL.md "Branches").
//
// - lineage: the conversations a branch's history is made of, oldest first,
//   each with the seq its part ends at (the branch point), then the branch;
// - siblings: the versions of one message are the conversation the branches
//   leave (the original, always first) and its branches from that point, in
//   the order they were made;
// - switchers: where in a shown history a ‹ 2/3 › goes — on the first item
//   after a branch point, in each part of the history;
// - conversationRows: the sidebar's rows, one per conversation with its
//   branches (issue 31: a branch was shown twice, as ‹ 2/2 › in the chat
//   and as a second chat in the sidebar).
import type { Session } from './protocol';

/** One part of a shown history: session `session` up to and including seq `upTo` (Infinity: all of it). */
export interface Part {
  session: string;
  upTo: number;
}

/** A chain of branches longer than this is shown from its deepest part only (a loop in a damaged log ends here too). */
export const MAX_DEPTH = 64;

/**
 * The parts of session `id`'s history, oldest first: each ancestor up to the
 * seq its child leaves it, then `id` itself (upTo Infinity). An ancestor not
 * in `sessions` (not listed yet) is still a part, but its own parent is not
 * known, so the chain begins with it.
 */
export function lineage(sessions: readonly Session[], id: string): Part[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const parts: Part[] = [{ session: id, upTo: Infinity }];
  const seen = new Set([id]);
  let s = byId.get(id);
  while (s?.parent && parts.length < MAX_DEPTH && !seen.has(s.parent)) {
    parts.unshift({ session: s.parent, upTo: s.parentSeq ?? 0 });
    seen.add(s.parent);
    s = byId.get(s.parent);
    if (!s) break;
  }
  return parts;
}

const made = (a: Session, b: Session) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

/** The versions at branch point (parent, seq): the parent first, then its branches from there by creation. */
export function siblings(sessions: readonly Session[], parent: string, seq: number): string[] {
  const branches = sessions.filter((s) => s.parent === parent && (s.parentSeq ?? 0) === seq).sort(made);
  return [parent, ...branches.map((s) => s.id)];
}

/** A switcher: the versions of one message and which of them is shown. */
export interface Switcher {
  versions: readonly string[];
  index: number;
}

/** The key of a shown item in switchers' map. */
export function itemKey(session: string, key: number): string {
  return `${session}:${key}`;
}

/**
 * The switchers of a history shown as `parts` whose items (keys: seqs) are
 * `keys[i]` for parts[i], keyed by itemKey. A part that is a branch gets one
 * on its first item (which of its siblings it is); an item of any part that
 * comes first after a point other branches leave gets one too (as the
 * original, 1/n). Points with no branch get none.
 */
export function switchers(sessions: readonly Session[], parts: readonly Part[], keys: readonly (readonly number[])[]): Map<string, Switcher> {
  const out = new Map<string, Switcher>();
  const byId = new Map(sessions.map((s) => [s.id, s]));
  parts.forEach((part, i) => {
    const shown = (keys[i] ?? []).filter((k) => k <= part.upTo);
    const self = byId.get(part.session);
    if (self?.parent && shown.length > 0) {
      const versions = siblings(sessions, self.parent, self.parentSeq ?? 0);
      if (versions.length > 1) out.set(itemKey(part.session, shown[0]), { versions, index: versions.indexOf(part.session) });
    }
    const points = new Set(sessions.filter((s) => s.parent === part.session).map((s) => s.parentSeq ?? 0));
    for (const seq of points) {
      const first = shown.find((k) => k > seq);
      const key = first === undefined ? '' : itemKey(part.session, first);
      if (!key || out.has(key)) continue;
      out.set(key, { versions: siblings(sessions, part.session, seq), index: 0 });
    }
  });
  return out;
}

/** A row of the sidebar: one conversation, its branches included. */
export interface ConversationRow {
  /** The version the row opens: the one shown when the conversation is open, else the one used last. */
  session: Session;
  /** How many versions (the conversation and its branches) the row stands for. */
  versions: number;
}

/**
 * The sidebar's rows: each conversation once, with its branches (switched
 * with ‹ › in the chat, not listed beside it), in the order the list gives
 * its most recent version. A row stands for the version open (`activeId`)
 * when it is one of them, else for the first of them in the list (the
 * list is newest first).
 */
export function conversationRows(sessions: readonly Session[], activeId: string | null): ConversationRow[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const rootOf = (s: Session): string => {
    let cur = s;
    const seen = new Set([s.id]);
    for (let next = cur.parent ? byId.get(cur.parent) : undefined; next && !seen.has(next.id); next = cur.parent ? byId.get(cur.parent) : undefined) {
      seen.add(next.id);
      cur = next;
    }
    return cur.id;
  };
  const families = new Map<string, Session[]>();
  for (const s of sessions) {
    const root = rootOf(s);
    families.set(root, [...(families.get(root) ?? []), s]);
  }
  return [...families.values()].map((members) => ({
    session: members.find((s) => s.id === activeId) ?? members[0],
    versions: members.length,
  }));
}
