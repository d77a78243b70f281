// The documents panel's part of the Transport (transport.ts extends it):
// the same methods over Wails bindings (wails.ts) and HTTP + SSE (http.ts).
// Every method rejects with an Error whose message is a sentence for the user.
import type { DocumentSource, DocumentsState, IndexProgress } from '../protocol';

/** Why choosing documents by path fails without a path. */
export const NO_DOCUMENT_PATH = 'Type the full path of a file or folder, like /home/you/Documents.';

export interface DocumentsTransport {
  /**
   * True in the desktop window: files and folders dropped on it are indexed
   * (the host takes the drop; the page only shows progress). False in a
   * browser, which cannot give paths: the page asks for them instead.
   */
  readonly takesFileDrops: boolean;
  /** Every document with its status, the embedder in use and the progress. */
  documents(): Promise<DocumentsState>;
  /** Queues absolute paths for indexing in the background; resolves once queued. */
  indexPaths(paths: string[]): Promise<void>;
  /** Stops the running pass; what it finished stays indexed. */
  cancelIndexing(): Promise<void>;
  /** Indexes a failed document (or a folder's failed documents) again. */
  retryDocument(path: string): Promise<void>;
  /** Takes a document or folder out of the index (not off the disk). */
  removeDocument(path: string): Promise<void>;
  /**
   * Chooses the embedding model ('' for none). Rejects with a sentence when
   * Ollama does not have it or it cannot embed; otherwise the documents are
   * re-embedded in the background (progress with `reembedding` set), and
   * searches use the vectors they have until that is done.
   */
  setEmbedModel(model: string): Promise<void>;
  /**
   * The text of an indexed document (a PDF: the page, from 1). Anything that
   * is not an indexed document is refused.
   */
  documentSource(path: string, page?: number): Promise<DocumentSource>;
  /**
   * Indexing progress as it changes (the current state first, where the
   * host sends it), and, in the window, the sentence of a drop that could
   * not be queued. Returns an unsubscribe function.
   */
  subscribeIndexing(onProgress: (p: IndexProgress) => void, onDropError?: (sentence: string) => void): () => void;
}
