// The models screen's part of the Transport (transport.ts extends it): the
// same methods over Wails bindings (wails.ts) and HTTP + SSE (http.ts).
// Every method rejects with an Error whose message is a sentence for the user.
import type { ModelsState, PullProgress } from '../protocol';

/** Why a pull cannot start without a name. */
export const NO_MODEL_NAME = 'Type the name of a model, like qwen3:4b (see ollama.com/library).';

export interface ModelsTransport {
  /**
   * The installed models with what each can do and which are loaded, the
   * recommended list, and the pulls since start. An Ollama that does not
   * answer is said in `error`; the recommended list is there regardless.
   */
  models(): Promise<ModelsState>;
  /** Starts pulling a model by name (or joins its running pull); resolves once it runs. */
  pullModel(name: string): Promise<void>;
  /** Stops a running pull; what was downloaded is kept, and pulling the name again resumes it. */
  cancelPull(name: string): Promise<void>;
  /** Removes an installed model (ask the user first). */
  deleteModel(name: string): Promise<void>;
  /**
   * Pull progress as it changes: every pull's last state (done, cancelled,
   * failed) always, running figures the latest. Returns an unsubscribe function.
   */
  subscribePulls(onProgress: (p: PullProgress) => void): () => void;
}

/** A state from a host, with the arrays a panel relies on. */
export function modelsState(r: Partial<ModelsState> | null | undefined): ModelsState {
  return {
    installed: (Array.isArray(r?.installed) ? r.installed : []).map((m) => ({ ...m, capabilities: m.capabilities ?? [] })),
    recommended: Array.isArray(r?.recommended) ? r.recommended : [],
    pulls: Array.isArray(r?.pulls) ? r.pulls : [],
    ...(r?.error ? { error: r.error } : {}),
  };
}
