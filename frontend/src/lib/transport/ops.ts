// The one way the page calls an operation of the host ports (Ops in
// protocol.ts, generated from Go's host.Ports by `make generate`), and its
// two transports: the window's bound Op and POST /api/op/{name}. An
// operation added to a port in Go is callable here at once, typed, with no
// line written in either transport.
import { OP_CONFIRMED, type OpName, type Ops } from '../protocol';

/** An operation's arguments, in the Go method's order (the context left out). */
export type OpArgs<K extends OpName> = Parameters<Ops[K]>;
/** What an operation resolves with (void: nothing). */
export type OpResult<K extends OpName> = ReturnType<Ops[K]>;

/** Calls an operation by name; rejects with an Error whose message is Quire's sentence. */
export type OpCall = <K extends OpName>(name: K, ...args: OpArgs<K>) => Promise<OpResult<K>>;

/** The window's bound methods an OpCall uses: Op, and those that ask the user first (OP_CONFIRMED). */
export type WailsOpApp = { Op(name: string, args: unknown[]): Promise<unknown> } & Partial<Record<string, (...args: never[]) => Promise<unknown>>>;

/**
 * The window: every operation through the bound Op, but one the window
 * asks about in a native dialog first (OP_CONFIRMED), which goes to the
 * bound method that asks: the window's Op refuses it.
 */
export function wailsOps(app: WailsOpApp): OpCall {
  return ((name: OpName, ...args: unknown[]) => {
    const confirm = OP_CONFIRMED[name];
    if (!confirm) return app.Op(name, args);
    const f = app[confirm] as ((...a: unknown[]) => Promise<unknown>) | undefined;
    if (typeof f !== 'function') return Promise.reject(new Error(`This window has no ${confirm} to ask you about ${name}; reload it.`));
    return f.apply(app, args);
  }) as OpCall;
}

/** The route of an operation in `quire serve` (host/httpapi/ops.go). */
export function opPath(name: OpName): string {
  return `/api/op/${encodeURIComponent(name)}`;
}

/** HTTP: POST opPath(name) with the arguments as a JSON array; `post` does the request and its errors. */
export function httpOps(post: (path: string, args: unknown[]) => Promise<unknown>): OpCall {
  return ((name: OpName, ...args: unknown[]) => post(opPath(name), args)) as OpCall;
}
