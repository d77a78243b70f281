// The search palette's state (Ctrl+K): the query, the hits of the latest
// search and the selection. A search is made a moment after the typing
// stops, and an answer to an older query never replaces a newer one's.
import { moveSelection } from './find';
import type { MessageHit } from './protocol';
import type { ConversationsTransport } from './transport/conversations';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class FindStore {
  open = $state(false);
  query = $state('');
  hits = $state.raw<MessageHit[]>([]);
  /** The index of the selected hit, -1 when none. */
  selected = $state(-1);
  /** A search is on its way. */
  searching = $state(false);
  /** The query the hits are for (what "nothing found" is about). */
  searched = $state('');
  /** Why the search failed, or null. */
  error = $state<string | null>(null);

  private token = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** `delayMs` is the pause after typing before a search is made. */
  constructor(
    private readonly t: ConversationsTransport,
    private readonly delayMs = 150,
  ) {}

  show(): void {
    this.open = true;
  }

  /** Closes the palette; the query stays for the next time. */
  hide(): void {
    this.open = false;
    this.cancelTimer();
  }

  /** The typed query: searched after a pause. */
  setQuery(q: string): void {
    this.query = q;
    this.cancelTimer();
    if (!q.trim()) {
      this.token++;
      this.hits = [];
      this.selected = -1;
      this.searched = '';
      this.searching = false;
      this.error = null;
      return;
    }
    this.timer = setTimeout(() => void this.search(q), this.delayMs);
  }

  /** Searches for `q` now; an older search's answer is dropped. */
  async search(q: string): Promise<void> {
    this.cancelTimer();
    const token = ++this.token;
    this.searching = true;
    try {
      const r = await this.t.searchConversations(q);
      if (token !== this.token) return;
      this.hits = r.hits ?? [];
      this.selected = this.hits.length ? 0 : -1;
      this.error = null;
    } catch (e) {
      if (token !== this.token) return;
      this.hits = [];
      this.selected = -1;
      this.error = `Could not search: ${message(e)}`;
    } finally {
      if (token === this.token) {
        this.searching = false;
        this.searched = q;
      }
    }
  }

  move(delta: number): void {
    this.selected = moveSelection(this.selected, this.hits.length, delta);
  }

  /** The selected hit, or null. */
  get current(): MessageHit | null {
    return this.hits[this.selected] ?? null;
  }

  private cancelTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
