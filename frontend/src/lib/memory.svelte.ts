// The memory panel's state: what the assistant remembers, grouped for the
// panel, with the user's actions (edit, forget, approve/reject, settings).
// Every action asks the host and then shows the host's list again, so the
// panel never shows what Quire does not hold; a failure keeps the panel as
// it was and shows the host's sentence.
import { HostList } from './hostlist.svelte';
import type { MemoryItem, MemoryList } from './protocol';
import type { MemoryHost } from './transport/transport';

/** One group of the panel. */
export interface MemoryGroup {
  key: 'pending' | 'preference' | 'fact' | 'working' | 'other-working';
  title: string;
  items: MemoryItem[];
}

const NOTE_LABEL: Record<string, string> = { conclusion: 'Conclusion', open: 'Open sub-task', attempt: 'Tried' };

/** What a working-memory note is called in the panel. */
export function noteLabel(note: string | undefined): string {
  return NOTE_LABEL[note ?? ''] ?? 'Note';
}

const APPROVED_LABEL: Record<string, string> = {
  asked: 'You said yes when asked',
  panel: 'Kept by you in this panel',
  user: 'Written by you',
  unasked: 'Remembered without asking',
  own: 'Quire’s own note while working',
};

/**
 * How the user let an item in, as the panel says it (the host records it
 * with the item): asked and said yes, kept in the panel, wrote the text, or
 * remembered without asking. A pending item is waiting for the user.
 */
export function approvalLabel(it: Pick<MemoryItem, 'status' | 'approved'> & Partial<Pick<MemoryItem, 'kind' | 'origin'>>): string {
  if (it.status === 'pending') return 'Waiting for your approval';
  // Quire's own working notes (a search it tried, a compaction's) were
  // marked "unasked" before the host said "own": they are not memories of
  // the user let in without asking.
  if (it.kind === 'working' && (it.origin === 'auto' || it.origin === 'compaction')) return APPROVED_LABEL.own;
  return APPROVED_LABEL[it.approved ?? ''] ?? 'Remembered without asking';
}

/**
 * Groups items for the panel: pending first (they need the user), then
 * preferences, facts, the working memory of the active conversation and that
 * of other conversations. Empty groups are left out; order within a group is
 * the host's (newest first for long-term items, oldest first for working).
 */
export function groupMemory(items: MemoryItem[], activeSession: string | null): MemoryGroup[] {
  const groups: MemoryGroup[] = [
    { key: 'pending', title: 'Waiting for your approval', items: [] },
    { key: 'preference', title: 'Preferences', items: [] },
    { key: 'fact', title: 'Facts', items: [] },
    { key: 'working', title: 'This conversation', items: [] },
    { key: 'other-working', title: 'Other conversations', items: [] },
  ];
  const at = (k: MemoryGroup['key']) => groups.find((g) => g.key === k)!;
  for (const it of items) {
    if (it.status === 'pending') at('pending').items.push(it);
    else if (it.kind === 'preference') at('preference').items.push(it);
    else if (it.kind === 'fact') at('fact').items.push(it);
    else if (it.session === activeSession) at('working').items.push(it);
    else at('other-working').items.push(it);
  }
  return groups.filter((g) => g.items.length > 0);
}

export class MemoryStore extends HostList<MemoryList> {
  items = $state<MemoryItem[]>([]);
  /** Memory writes need the user's yes (the default); off is "remember without asking". */
  approval = $state(true);
  learn = $state(false);

  // busy is the id of the item whose action is going.
  constructor(private readonly host: MemoryHost) {
    super();
  }

  protected fetch(): Promise<MemoryList> {
    return this.host.memory();
  }
  protected show(l: MemoryList) {
    this.items = l.items ?? []; // Go writes an empty list as null
    this.approval = l.approval;
    this.learn = l.learn;
  }

  /**
   * Shows the host's list again without touching the sentence of a failed
   * action (a refresh in the background, e.g. after a reply: the assistant
   * may have remembered something). A failed refresh changes nothing.
   */
  async refresh(): Promise<void> {
    try {
      this.show(await this.fetch());
    } catch {
      /* the next action or refresh says what is wrong */
    }
  }

  /** Resolves true when the host kept the new text. */
  edit(id: string, text: string): Promise<boolean> {
    return this.act(id, () => this.host.editMemory(id, text));
  }
  forget(id: string): Promise<boolean> {
    return this.act(id, () => this.host.forgetMemory(id));
  }
  review(id: string, approve: boolean): Promise<boolean> {
    return this.act(id, () => this.host.reviewMemory(id, approve));
  }
  setApproval(on: boolean): Promise<boolean> {
    return this.act(null, () => this.host.setMemorySettings({ approval: on }));
  }
  /** The panel's "remember without asking": approval off. */
  setWithoutAsking(on: boolean): Promise<boolean> {
    return this.setApproval(!on);
  }
  setLearn(on: boolean): Promise<boolean> {
    return this.act(null, () => this.host.setMemorySettings({ learn: on }));
  }
}
