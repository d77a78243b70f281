// Chooses the transport: the generated Wails bindings when the page runs
// inside the desktop window (window.go.main.App exists), otherwise HTTP + SSE
// against the origin that served the page (`quire serve`).
import { HttpTransport } from './http';
import type { Transport } from './transport';
import { generatedApp, generatedRuntime, WailsTransport, type WailsApp, type WailsRuntime } from './wails';

export interface HostWindow {
  go?: { main?: { App?: WailsApp } };
  runtime?: WailsRuntime;
  location: { origin: string };
}

export function pickTransport(win: HostWindow = window): Transport {
  // The generated functions call window.go.main.App and window.runtime.
  if (win.go?.main?.App) return new WailsTransport(generatedApp, win.runtime ? generatedRuntime : undefined);
  return new HttpTransport(win.location.origin);
}
