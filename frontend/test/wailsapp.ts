// The bound methods every WailsApp has, doing nothing: a test spreads it
// and adds (or replaces) the methods it is about. Op answers every
// operation with `ops[name]` (called with the arguments) or rejects.
import type { WailsApp } from '../src/lib/transport/wails';

export function bareApp(ops: Record<string, (...args: never[]) => unknown> = {}): WailsApp {
  const nothing = async () => ({}) as never;
  return {
    Handshake: async () => '1.0',
    Doctor: async () => ({ ok: true, checks: [] }),
    ListSessions: async () => [],
    NewSession: nothing,
    RenameSession: nothing,
    DeleteSession: async () => {},
    Events: async () => [],
    Send: async () => '',
    SendWith: async () => '',
    Cancel: async () => {},
    EditMessage: nothing,
    Regenerate: nothing,
    ContinueRun: async () => '',
    ReportView: async () => {},
    NotesFolder: async () => '',
    ChooseNotesFolder: async () => '',
    SaveSettings: nothing,
    Questions: async () => [],
    QuestionShown: async () => {},
    ExportSession: async () => '',
    Op: async (name: string, args: unknown[]) => {
      const f = ops[name] as ((...a: unknown[]) => unknown) | undefined;
      if (!f) throw `no operation ${name} in this test`;
      return f(...args);
    },
    UndoChange: nothing,
    UndoConversation: nothing,
    ApplyBatch: nothing,
    UndoBatch: nothing,
    PutMCPServer: nothing,
    ImportMCP: nothing,
    SetMCPTool: nothing,
    ApproveCandidate: nothing,
    ActivateCandidate: nothing,
    RollbackCandidate: nothing,
  };
}
