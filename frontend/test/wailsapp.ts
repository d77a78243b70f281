// The bound methods every WailsApp has, doing nothing: a test spreads it
// and adds (or replaces) the methods it is about.
import type { WailsApp } from '../src/lib/transport/wails';

export function bareApp(): WailsApp {
  return {
    Handshake: async () => '1.0',
    Doctor: async () => ({ ok: true, checks: [] }),
    ListSessions: async () => [],
    NewSession: async () => ({}) as never,
    RenameSession: async () => ({}) as never,
    DeleteSession: async () => {},
    Events: async () => [],
    Send: async () => '',
    Cancel: async () => {},
    ReportView: async () => {},
  };
}
