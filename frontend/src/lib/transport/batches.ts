// The batches' part of the Transport (transport.ts extends it): "organise a
// folder" as a queue of small tasks, its progress, and the one review of the
// whole batch — the same methods over Wails bindings (wails.ts) and HTTP +
// SSE (http.ts). Every method rejects with an Error whose message is a
// sentence for the user.
import type { Batch, BatchDecision, BatchProgress, BatchReview } from '../protocol';

/** Why a batch cannot start without a folder. */
export const NO_BATCH_FOLDER = 'Type the folder to organise, inside your notes folder, like inbox.';

export interface BatchesTransport {
  /**
   * True in the desktop window: after the page's list, Apply and Undo ask
   * once more in a native dialog, which the page cannot click, and resolve
   * with the batch unchanged when the user said No there. False in a
   * browser: the page's own confirm is the user's yes.
   */
  readonly confirmsBatchInDialog: boolean;
  /** Every batch, newest first. */
  batches(): Promise<Batch[]>;
  /** One batch with its tasks and, once it is reviewing, the review list. */
  batch(id: string): Promise<BatchReview>;
  /** Starts organising `folder` (relative to the notes folder); resolves once its tasks are queued. */
  startBatch(folder: string): Promise<Batch>;
  pauseBatch(id: string): Promise<Batch>;
  resumeBatch(id: string): Promise<Batch>;
  cancelBatch(id: string): Promise<Batch>;
  /** The user's one yes: the ticked items are applied as one change. */
  applyBatch(id: string, d: BatchDecision): Promise<Batch>;
  /** Undoes an applied batch as one. */
  undoBatch(id: string): Promise<Batch>;
  /** Every change of every batch, in order (a task's end always). Returns an unsubscribe function. */
  subscribeBatches(onProgress: (p: BatchProgress) => void): () => void;
}

/** A review from a host, with the arrays the page relies on (Go writes empty ones as null). */
export function batchReview(r: BatchReview): BatchReview {
  return {
    ...r,
    tasks: (r.tasks ?? []).map((t) => ({ ...t, proposal: t.proposal ? { ...t.proposal, tags: t.proposal.tags ?? [], links: t.proposal.links ?? [] } : null })),
    items: (r.items ?? []).map((i) => ({ ...i, tags: i.tags ?? [], links: i.links ?? [] })),
    changes: r.changes ?? [],
  };
}
