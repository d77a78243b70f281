// The pattern of a panel that shows a list the host holds (memory, skills):
// every action asks the host and then shows the host's list again, so the
// panel never shows what Quire does not hold; a failure keeps the list as
// it was and holds the host's sentence in `error`.

export abstract class HostList<L> {
  loading = $state(false);
  error = $state<string | null>(null);
  /** What the action under way is on (an id, a name), to disable its controls; null for the whole list. */
  busy = $state<string | null>(null);

  /** The host's list now. */
  protected abstract fetch(): Promise<L>;
  /** Shows l. */
  protected abstract show(l: L): void;

  /** Runs f on busy, then shows the host's list; resolves true when both went. */
  protected async act(busy: string | null, f: () => Promise<unknown>): Promise<boolean> {
    this.busy = busy;
    this.error = null;
    try {
      await f();
      this.show(await this.fetch());
      return true;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      return false;
    } finally {
      this.busy = null;
    }
  }

  async load(): Promise<void> {
    this.loading = true;
    await this.act(null, async () => {});
    this.loading = false;
  }
}
