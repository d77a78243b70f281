// The review list's logic (lib/review.ts): ticks, edits, the page's checks
// of a destination, the count on the one Apply button, what its confirm
// lists and the decision sent to Quire.
import { describe, expect, it } from 'vitest';
import type { ReviewItem } from '../src/lib/protocol';
import {
  allTicked,
  applyLabel,
  approved,
  cleanPath,
  confirmText,
  decision,
  destinationError,
  destinationErrors,
  edited,
  reviewRows,
  toggled,
} from '../src/lib/review';

function item(task: string, from: string, to: string, over: Partial<ReviewItem> = {}): ReviewItem {
  return { task, from, to, tags: [], links: [], reason: `why ${task}`, selected: true, ...over };
}

const ITEMS = [
  item('t1', 'inbox/a.md', 'projects/a.md', { tags: ['idea'] }),
  item('t2', 'inbox/b.md', 'journal/b.md'),
  item('t3', 'inbox/c.md', '', { links: ['projects/a.md'] }),
  item('t4', 'inbox/d.md', 'inbox/d.md'), // stays, nothing to do
];

describe('review rows', () => {
  it('start as the workers proposed, ticked as Quire sent them', () => {
    const rows = reviewRows([...ITEMS, item('t5', 'inbox/e.md', 'x/e.md', { selected: false })]);
    expect(rows.map((r) => [r.to, r.selected])).toEqual([
      ['projects/a.md', true],
      ['journal/b.md', true],
      ['inbox/c.md', true],
      ['inbox/d.md', true],
      ['x/e.md', false],
    ]);
    expect(reviewRows(null)).toEqual([]);
  });

  it('count only ticked rows that change something', () => {
    let rows = reviewRows(ITEMS);
    expect(approved(rows).map((r) => r.item.task)).toEqual(['t1', 't2', 't3']);
    rows = toggled(rows, 't2');
    expect(approved(rows).map((r) => r.item.task)).toEqual(['t1', 't3']);
    rows = toggled(rows, 't2');
    expect(approved(rows)).toHaveLength(3);
    rows = toggled(rows, 't1', false);
    rows = toggled(rows, 't1', false);
    expect(approved(rows).map((r) => r.item.task)).toEqual(['t2', 't3']);
  });

  it('select all and none', () => {
    const none = allTicked(reviewRows(ITEMS), false);
    expect(none.every((r) => !r.selected)).toBe(true);
    expect(approved(none)).toHaveLength(0);
    const all = allTicked(none, true);
    expect(all.every((r) => r.selected)).toBe(true);
    expect(approved(all)).toHaveLength(3);
  });

  it('an edit moves a note that stayed, and an edit back to where it is leaves only its tags', () => {
    let rows = edited(reviewRows(ITEMS), 't4', 'archive/d.md');
    expect(approved(rows).map((r) => r.item.task)).toEqual(['t1', 't2', 't3', 't4']);
    rows = edited(rows, 't4', ' ');
    expect(approved(rows).map((r) => r.item.task)).toEqual(['t1', 't2', 't3']);
    rows = edited(rows, 't1', 'inbox/a.md');
    expect(approved(rows).map((r) => r.item.task)).toEqual(['t1', 't2', 't3']); // its tag still changes it
    expect(confirmText(rows).lines[0]).toBe('inbox/a.md (stays) · tags: idea');
  });

  it.each([
    [1, 'Apply 1 change'],
    [0, 'Apply 0 changes'],
    [12, 'Apply 12 changes'],
  ])('the button for %i says %s', (n, want) => {
    expect(applyLabel(n)).toBe(want);
  });
});

describe('cleanPath', () => {
  it.each([
    ['a//b/./c.md', 'a/b/c.md'],
    ['a\\b.md', 'a/b.md'],
    ['  x/../y.md ', 'y.md'],
    ['../y.md', null],
    ['a/../../y.md', null],
    ['.', ''],
  ])('%s → %s', (p, want) => {
    expect(cleanPath(p)).toBe(want);
  });
});

describe('destination checks', () => {
  const rows = reviewRows(ITEMS);
  it.each([
    ['projects/a.md', null],
    ['projects//a.md', null],
    ['', null], // stays
    ['/home/me/a.md', 'is outside your notes folder'],
    ['C:\\notes\\a.md', 'is outside your notes folder'],
    ['../a.md', 'leaves your notes folder'],
    ['projects/', 'is a folder: end it with the note\'s name, like projects/a.md'],
    ['projects/a.txt', 'would lose its .md ending: keep it, like projects/a.md'],
    ['projects/a', 'would lose its .md ending'],
    ['pro:jects/a.md', "a control character or ':'"],
    ['journal/b.md', 'inbox/b.md is going to journal/b.md too'],
    ['inbox/d.md', 'inbox/d.md is already a note in this batch'],
    ['x'.repeat(1100) + '.md', 'longer than the 1024 bytes'],
  ])('%s', (to, want) => {
    const e = destinationError(edited(rows, 't1', to), 't1');
    if (want === null) expect(e).toBeNull();
    else expect(e).toContain(want);
  });

  it('a place another note leaves is free, and an unticked note stays in its place', () => {
    // t2 leaves inbox/b.md: t1 may take it.
    expect(destinationError(edited(rows, 't1', 'inbox/b.md'), 't1')).toBeNull();
    // Unticked, t2 stays: its place is taken.
    const un = toggled(edited(rows, 't1', 'inbox/b.md'), 't2', false);
    expect(destinationError(un, 't1')).toContain('inbox/b.md is already a note in this batch');
    // And t2 no longer collides with t1 going to journal/b.md.
    const both = toggled(edited(rows, 't1', 'journal/b.md'), 't2', false);
    expect(destinationError(both, 't1')).toBeNull();
  });

  it('an unticked row is not checked, and both rows of a collision are marked', () => {
    const clash = edited(rows, 't1', 'journal/b.md');
    expect([...destinationErrors(clash).keys()]).toEqual(['t1', 't2']);
    expect(destinationError(toggled(edited(rows, 't1', '/abs.md'), 't1', false), 't1')).toBeNull();
  });
});

describe('the one yes', () => {
  it('its confirm shows the count and every change it approves', () => {
    let rows = toggled(reviewRows(ITEMS), 't2', false);
    rows = edited(rows, 't3', 'people/c.md');
    const c = confirmText(rows);
    expect(c.title).toBe('Apply these 2 changes to your notes?');
    expect(c.lines).toEqual(['inbox/a.md → projects/a.md · tags: idea', 'inbox/c.md → people/c.md · links: projects/a.md']);
    expect(confirmText(toggled(rows, 't3', false)).title).toBe('Apply this change to your notes?');
  });

  it('sends every row with its edit, ticked only where it approves a change', () => {
    let rows = toggled(reviewRows(ITEMS), 't2', false);
    rows = edited(rows, 't1', ' projects//ideas/a.md ');
    const d = decision(rows);
    expect(d.items?.map((i) => [i.task, i.from, i.to, i.selected])).toEqual([
      ['t1', 'inbox/a.md', 'projects/ideas/a.md', true],
      ['t2', 'inbox/b.md', 'journal/b.md', false],
      ['t3', 'inbox/c.md', 'inbox/c.md', true],
      ['t4', 'inbox/d.md', 'inbox/d.md', false],
    ]);
    // The worker's tags, links and reason go back as they came.
    expect(d.items?.[0].tags).toEqual(['idea']);
    expect(d.items?.[2].links).toEqual(['projects/a.md']);
  });
});
