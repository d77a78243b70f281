// The inspector's part of the Transport ("what the model saw"): a
// session's model calls, numbered as `quire replay SESSION -request N`
// numbers them, read from the log. Every method rejects with an Error
// whose message is a sentence for the user.
import type { Call, CallList } from '../protocol';

export interface CallsTransport {
  /** The session's calls, oldest first (only those of `run` when given). Light. */
  calls(session: string, run?: string): Promise<CallList>;
  /** Call `n` in full; long texts are cut (`truncated`), never the copy. */
  modelCall(session: string, n: number): Promise<Call>;
  /** Call `n`'s request whole: byte for byte what `quire replay SESSION -request N` prints. */
  callRequest(session: string, n: number): Promise<string>;
}

/** A list from a host, with the array a panel relies on. */
export function callList(r: Partial<CallList> | null | undefined): CallList {
  const calls = Array.isArray(r?.calls) ? r.calls : [];
  return { calls, total: typeof r?.total === 'number' ? r.total : calls.length };
}

/** A call from a host, with the arrays a panel relies on. */
export function callDetail(c: Call): Call {
  return {
    ...c,
    messages: c.messages ?? [],
    tools: c.tools ?? [],
    ...(c.diff
      ? {
          diff: {
            ...c.diff,
            removed: c.diff.removed ?? [],
            toolsAdded: c.diff.toolsAdded ?? [],
            toolsRemoved: c.diff.toolsRemoved ?? [],
            optionsChanged: c.diff.optionsChanged ?? [],
          },
        }
      : {}),
  };
}
