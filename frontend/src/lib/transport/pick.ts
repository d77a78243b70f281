// Chooses the transport: the Wails bindings when the page runs inside the
// desktop window (window.go.main.App exists), otherwise HTTP + SSE against the
// origin that served the page (`quire serve`).
import { HttpTransport } from './http';
import type { Transport } from './transport';
import { WailsTransport, type WailsApp, type WailsRuntime } from './wails';

export interface HostWindow {
  go?: { main?: { App?: WailsApp } };
  runtime?: WailsRuntime;
  location: { origin: string };
}

export function pickTransport(win: HostWindow = window): Transport {
  const app = win.go?.main?.App;
  if (app) return new WailsTransport(app, win.runtime);
  return new HttpTransport(win.location.origin);
}
