// The review list of a batch (issue 18): one screen where the user ticks,
// unticks and edits what the workers proposed, then says one yes for all of
// it. Pure functions over plain rows, so the whole logic — ticks, edits,
// validation, counts, what the yes approves — is tested without a page
// (frontend/test/review.test.ts). The page checks a destination only as far
// as it can without the disk (inside the notes folder, the note's extension
// kept, no two notes in one place); Quire checks again when it applies, and
// the page shows its refusal in words.
import type { BatchDecision, ReviewItem } from './protocol';

/** One line of the list as the page holds it: the worker's item and the user's edit. */
export interface ReviewRow {
  item: ReviewItem;
  /** Where the note goes, as the user typed it ("" or item.from: it stays). */
  to: string;
  selected: boolean;
}

/** A path is at most this long (tools/notes maxPathBytes), in bytes of UTF-8. */
export const MAX_PATH_BYTES = 1024;

/** The rows of a review, each as the worker proposed and as Quire ticked it (all by default). */
export function reviewRows(items: ReviewItem[] | null | undefined): ReviewRow[] {
  return (items ?? []).map((item) => ({ item, to: item.to || item.from, selected: item.selected }));
}

/** The rows with one ticked or unticked. */
export function toggled(rows: ReviewRow[], task: string, on?: boolean): ReviewRow[] {
  return rows.map((r) => (r.item.task === task ? { ...r, selected: on ?? !r.selected } : r));
}

/** Every row ticked (true) or none (false). */
export function allTicked(rows: ReviewRow[], on: boolean): ReviewRow[] {
  return rows.map((r) => (r.selected === on ? r : { ...r, selected: on }));
}

/** The rows with one destination edited. */
export function edited(rows: ReviewRow[], task: string, to: string): ReviewRow[] {
  return rows.map((r) => (r.item.task === task ? { ...r, to } : r));
}

/** A path inside the notes folder as Quire cleans it ("a//b/./c.md" → "a/b/c.md"), or null when it leaves the folder. */
export function cleanPath(p: string): string | null {
  const parts: string[] = [];
  for (const seg of p.trim().replaceAll('\\', '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return null;
      parts.pop();
      continue;
    }
    parts.push(seg);
  }
  return parts.join('/');
}

/** Where a row's note ends up: its cleaned destination, or where it is when it stays. */
export function destination(r: ReviewRow): string {
  const to = r.to.trim();
  if (to === '') return r.item.from;
  return cleanPath(to) ?? to;
}

/** True when the row moves its note. */
export function moves(r: ReviewRow): boolean {
  return destination(r) !== r.item.from;
}

/** True when the row changes something: a move, tags or links. */
export function changes(r: ReviewRow): boolean {
  return moves(r) || (r.item.tags?.length ?? 0) > 0 || (r.item.links?.length ?? 0) > 0;
}

function extension(p: string): string {
  const base = p.slice(p.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/**
 * Why a row's destination cannot be used, in words, or null when it can as
 * far as the page can tell: inside the notes folder, a file name with the
 * note's extension, and no other ticked note going to (or staying in) the
 * same place. Unticked rows are not checked: they change nothing.
 */
export function destinationError(rows: ReviewRow[], task: string): string | null {
  const r = rows.find((x) => x.item.task === task);
  if (!r || !r.selected) return null;
  const typed = r.to.trim();
  if (typed === '') return null; // it stays
  if (/^[A-Za-z]:/.test(typed) || typed.startsWith('/') || typed.startsWith('\\')) {
    return `"${typed}" is outside your notes folder: write a path inside it, like projects/${basename(r.item.from)}.`;
  }
  const to = cleanPath(typed);
  if (to === null) return `"${typed}" leaves your notes folder: write a path inside it, like projects/${basename(r.item.from)}.`;
  if (to === '' || typed.endsWith('/')) {
    return `"${typed}" is a folder: end it with the note's name, like ${to ? `${to}/` : ''}${basename(r.item.from)}.`;
  }
  if (new TextEncoder().encode(to).length > MAX_PATH_BYTES) {
    return `The path is longer than the ${MAX_PATH_BYTES} bytes Quire allows: choose a shorter one.`;
  }
  if (/[\u0000-\u001f\u007f]/.test(to) || to.includes(':')) {
    return `"${typed}" has a character a file name cannot hold (a control character or ':'): choose another name.`;
  }
  const ext = extension(r.item.from);
  if (extension(to) !== ext) {
    return `The note would lose its ${ext || 'name'} ending: keep it, like ${to.replace(/\.[^./]*$/, '')}${ext}.`;
  }
  const here = destination(r);
  for (const o of rows) {
    if (o === r || o.item.task === task) continue;
    // A note another row leaves behind is no collision; one that stays (or
    // is unticked, so stays) is, and so is another ticked note going there.
    const there = o.selected ? destination(o) : o.item.from;
    if (there === here) {
      return o.selected && moves(o)
        ? `${o.item.from} is going to ${here} too: choose another place for one of them.`
        : `${here} is already a note in this batch (it stays where it is): choose another name.`;
    }
  }
  return null;
}

/** Every row's trouble, by task (only the rows that have one). */
export function destinationErrors(rows: ReviewRow[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of rows) {
    const e = destinationError(rows, r.item.task);
    if (e) out.set(r.item.task, e);
  }
  return out;
}

/** The rows the yes approves: ticked, and changing something. */
export function approved(rows: ReviewRow[]): ReviewRow[] {
  return rows.filter((r) => r.selected && changes(r));
}

/** What the Apply button says: "Apply 3 changes". */
export function applyLabel(n: number): string {
  return n === 1 ? 'Apply 1 change' : `Apply ${n} changes`;
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** One approved row in words: "inbox/a.md → projects/a.md · tags: idea, work · links: b.md". */
export function rowLine(r: ReviewRow): string {
  const parts = [moves(r) ? `${r.item.from} → ${destination(r)}` : `${r.item.from} (stays)`];
  if (r.item.tags?.length) parts.push(`tags: ${r.item.tags.join(', ')}`);
  if (r.item.links?.length) parts.push(`links: ${r.item.links.join(', ')}`);
  return parts.join(' · ');
}

/** The confirm's question, which shows everything the yes approves: the count and every change. */
export function confirmText(rows: ReviewRow[]): { title: string; lines: string[] } {
  const ok = approved(rows);
  const title = ok.length === 1 ? 'Apply this change to your notes?' : `Apply these ${ok.length} changes to your notes?`;
  return { title, lines: ok.map(rowLine) };
}

/** The user's one answer: every row, as ticked and edited (Quire applies only the ticked ones). */
export function decision(rows: ReviewRow[]): BatchDecision {
  return {
    items: rows.map((r) => ({ ...r.item, to: destination(r), selected: r.selected && changes(r) })),
  };
}
