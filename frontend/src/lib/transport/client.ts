// The one client of the host ports' operations: every Transport method a
// panel calls that is an operation (Ops in protocol.ts, from Go's
// host.Ports) is written here once, over the OpCall its transport gives
// (ops.ts), and normalised once (Go writes an empty list as null). The
// transports add only what is theirs: the session commands, the streams,
// the dialogs. A panel may also call any operation by name with `op`, so
// an operation added in Go needs no method here.
import type { Activation, Approval, Batch, BatchDecision, BatchReview, Call, CallList, Candidate, CandidateDetail, CandidateDraft, ChangeList, DocumentSource, DocumentsState, EvaluationJob, EvolutionState, MCPServerConfig, MCPToolChoice, MemoryItem, MemoryList, MessageSearch, ModelsState, NoteFolder, NoteLinks, NoteText, NoteVersions, OllamaCheck, SettingsScreen, SkillInfo, SkillList, StandingFiring, StandingSummary, StandingTask, UndoOutcome, WritePreview } from '../protocol';
import { batchReview, NO_BATCH_FOLDER } from './batches';
import { callDetail, callList } from './calls';
import { messageSearch } from './conversations';
import { NO_DOCUMENT_PATH } from './documents';
import { candidate, candidateDetail, evaluationJob, evolutionState } from './evolution';
import { mcpImport, mcpList, mcpServer, type MCPAction, type McpImport, type McpList, type McpServer } from './mcp';
import { modelsState, NO_MODEL_NAME } from './models';
import { changeList, noteFolder, noteLinks, undoOutcome } from './notes';
import type { OpCall } from './ops';
import { settingsScreen } from './settings';
import { NO_SKILL_FOLDER, skillList } from './skills';
import { standingList } from './standing';
import { memoryList } from './transport';

/** Why a proposed change cannot be previewed: its arguments are not JSON. */
export const NO_PREVIEW = 'The proposed change has arguments Quire cannot read, so there is nothing to preview.';

export abstract class PortsClient {
  /** Calls any operation of the host ports by name, typed by Ops. */
  abstract readonly op: OpCall;

  // The memory panel.
  async memory(): Promise<MemoryList> {
    return memoryList(await this.op('Memory.MemoryList'));
  }
  editMemory(id: string, text: string): Promise<MemoryItem> {
    return this.op('Memory.EditMemory', id, text);
  }
  forgetMemory(id: string): Promise<void> {
    return this.op('Memory.ForgetMemory', id);
  }
  reviewMemory(id: string, approve: boolean): Promise<void> {
    return this.op('Memory.ReviewMemory', id, approve);
  }
  async setMemorySettings(s: { approval?: boolean; learn?: boolean }): Promise<MemoryList> {
    if (s.approval !== undefined) await this.op('Memory.SetMemoryApproval', s.approval);
    if (s.learn !== undefined) await this.op('Memory.SetMemoryLearning', s.learn);
    return this.memory();
  }

  // The documents panel.
  async documents(): Promise<DocumentsState> {
    const r = await this.op('Documents.State');
    return { ...r, roots: r?.roots ?? [], documents: r?.documents ?? [] };
  }
  async indexPaths(paths: string[]): Promise<void> {
    const clean = paths.map((p) => p.trim()).filter(Boolean);
    if (clean.length === 0) throw new Error(NO_DOCUMENT_PATH);
    await this.op('Documents.Add', clean);
  }
  cancelIndexing(): Promise<void> {
    return this.op('Documents.Cancel');
  }
  retryDocument(path: string): Promise<void> {
    return this.op('Documents.Retry', path);
  }
  removeDocument(path: string): Promise<void> {
    return this.op('Documents.Remove', path);
  }
  setEmbedModel(model: string): Promise<void> {
    return this.op('Documents.SetEmbedModel', model);
  }
  documentSource(path: string, page = 0): Promise<DocumentSource> {
    return this.op('Documents.Source', path, page);
  }

  // The Settings screen (saving is each transport's: a refusal names its field differently).
  async settings(): Promise<SettingsScreen> {
    return settingsScreen(await this.op('Settings.Screen'));
  }
  async checkOllama(address: string): Promise<OllamaCheck> {
    const r = await this.op('Settings.CheckOllama', address);
    return { ...r, models: r.models ?? [] };
  }

  // The models screen.
  async models(): Promise<ModelsState> {
    return modelsState(await this.op('Models.List'));
  }
  async pullModel(name: string): Promise<void> {
    const n = name.trim();
    if (!n) throw new Error(NO_MODEL_NAME);
    await this.op('Models.Pull', n);
  }
  cancelPull(name: string): Promise<void> {
    return this.op('Models.CancelPull', name);
  }
  deleteModel(name: string): Promise<void> {
    return this.op('Models.Delete', name);
  }

  // The Notes panel.
  async notesTree(path: string): Promise<NoteFolder> {
    return noteFolder(await this.op('Notes.Tree', path));
  }
  noteText(path: string): Promise<NoteText> {
    return this.op('Notes.Read', path);
  }
  async noteChanges(): Promise<ChangeList> {
    return changeList(await this.op('Notes.Changes'));
  }
  /** The window asks in a native dialog first (UndoChange). */
  async undoChange(id: string): Promise<UndoOutcome> {
    return undoOutcome(await this.op('Notes.Undo', id));
  }
  /** The window asks in a native dialog first (UndoConversation). */
  async undoConversation(session: string, ids: string[]): Promise<UndoOutcome> {
    return undoOutcome(await this.op('Notes.UndoAll', session, ids));
  }
  noteVersions(id: string): Promise<NoteVersions> {
    return this.op('Notes.Versions', id);
  }
  async noteLinks(path: string): Promise<NoteLinks> {
    return noteLinks(await this.op('Notes.Links', path), path);
  }
  /** `args` is the call's arguments as the model wrote them (JSON text). */
  previewWrite(tool: string, args: string): Promise<WritePreview> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args || '{}');
    } catch {
      return Promise.reject(new Error(NO_PREVIEW));
    }
    return this.op('Notes.Preview', tool, parsed);
  }

  // The inspector ("what the model saw").
  async calls(session: string, run?: string): Promise<CallList> {
    return callList(await this.op('Calls.Calls', session, run ?? ''));
  }
  async modelCall(session: string, n: number): Promise<Call> {
    return callDetail(await this.op('Calls.Call', session, n));
  }
  /** The request's bytes as text, equal to `quire replay -request N`. */
  callRequest(session: string, n: number): Promise<string> {
    return this.op('Calls.Request', session, n);
  }

  // The search over every conversation.
  async searchConversations(query: string, limit = 0): Promise<MessageSearch> {
    return messageSearch(await this.op('Conversations.Search', query, limit), query);
  }

  // The task queue.
  async batches(): Promise<Batch[]> {
    return (await this.op('Batches.List')) ?? [];
  }
  async batch(id: string): Promise<BatchReview> {
    return batchReview(await this.op('Batches.Get', id));
  }
  async startBatch(folder: string): Promise<Batch> {
    const f = folder.trim();
    if (!f) throw new Error(NO_BATCH_FOLDER);
    return this.op('Batches.Start', f);
  }
  pauseBatch(id: string): Promise<Batch> {
    return this.op('Batches.Pause', id);
  }
  resumeBatch(id: string): Promise<Batch> {
    return this.op('Batches.Resume', id);
  }
  cancelBatch(id: string): Promise<Batch> {
    return this.op('Batches.Cancel', id);
  }
  /** The window asks in a native dialog first: on No the batch comes back unchanged (reviewing). */
  applyBatch(id: string, d: BatchDecision): Promise<Batch> {
    return this.op('Batches.Apply', id, d);
  }
  undoBatch(id: string): Promise<Batch> {
    return this.op('Batches.Undo', id);
  }

  // The MCP servers.
  async mcpServers(): Promise<McpList> {
    return mcpList(await this.op('MCP.Servers'));
  }
  /** The window asks before a server that runs a command. */
  async putMcpServer(c: MCPServerConfig): Promise<McpServer> {
    return mcpServer(await this.op('MCP.Put', c));
  }
  removeMcpServer(name: string): Promise<void> {
    return this.op('MCP.Remove', name);
  }
  async importMcp(text: string): Promise<McpImport> {
    return mcpImport(await this.op('MCP.Import', text));
  }
  async controlMcpServer(name: string, action: MCPAction): Promise<McpServer> {
    const act = ({ start: 'MCP.Start', stop: 'MCP.Stop', restart: 'MCP.Restart' } as const)[action];
    if (!act) throw new Error(`"${action}" is not start, stop or restart.`);
    return mcpServer(await this.op(act, name));
  }
  /** The window asks before a loosening; on No the server comes back unchanged. */
  async setMcpTool(c: MCPToolChoice): Promise<McpServer> {
    return mcpServer(await this.op('MCP.SetTool', c));
  }

  // Evolution.
  async evolution(): Promise<EvolutionState> {
    return evolutionState(await this.op('Evolution.List'));
  }
  async setEvolutionLearning(on: boolean): Promise<EvolutionState> {
    await this.op('Evolution.SetLearning', on);
    return this.evolution();
  }
  async candidate(id: string): Promise<CandidateDetail> {
    return candidateDetail(await this.op('Evolution.Show', id));
  }
  async proposeCandidate(d: CandidateDraft): Promise<Candidate> {
    return candidate(await this.op('Evolution.Propose', d));
  }
  /** Starts the evaluation in the background; the job reports how it goes. */
  async evaluateCandidate(id: string): Promise<EvaluationJob> {
    return evaluationJob(await this.op('Evolution.StartEvaluation', id));
  }
  async evaluationJob(id: string): Promise<EvaluationJob> {
    return evaluationJob(await this.op('Evolution.Evaluation', id));
  }
  async cancelEvaluation(id: string): Promise<EvaluationJob> {
    return evaluationJob(await this.op('Evolution.CancelEvaluation', id));
  }
  /** The window asks in a native dialog first: on No the candidate comes back unchanged. */
  async approveCandidate(id: string, a: Approval): Promise<Candidate> {
    return candidate(await this.op('Evolution.Approve', id, a));
  }
  async refuseCandidate(id: string, reason: string): Promise<Candidate> {
    return candidate(await this.op('Evolution.Refuse', id, reason));
  }
  async activateCandidate(id: string, a: Activation): Promise<Candidate> {
    return candidate(await this.op('Evolution.Activate', id, a));
  }
  async rollbackCandidate(id: string): Promise<Candidate> {
    return candidate(await this.op('Evolution.Rollback', id));
  }

  // Settings → Skills.
  async skills(): Promise<SkillList> {
    return skillList(await this.op('Skills.SkillList'));
  }
  setSkillEnabled(name: string, on: boolean): Promise<void> {
    return this.op('Skills.SetSkillEnabled', name, on);
  }
  async installSkill(dir: string): Promise<SkillInfo> {
    const d = dir.trim();
    if (!d) throw new Error(NO_SKILL_FOLDER);
    return this.op('Skills.InstallSkill', d);
  }

  // The Standing tasks panel.
  async standingTasks(): Promise<StandingSummary[]> {
    return standingList(await this.op('Standing.List'));
  }
  addStandingTask(t: StandingTask): Promise<StandingSummary> {
    return this.op('Standing.Add', t);
  }
  editStandingTask(t: StandingTask): Promise<StandingSummary> {
    return this.op('Standing.Edit', t);
  }
  pauseStandingTask(id: string, paused: boolean): Promise<StandingSummary> {
    return this.op('Standing.SetPaused', id, paused);
  }
  removeStandingTask(id: string): Promise<void> {
    return this.op('Standing.Remove', id);
  }
  runStandingTask(id: string): Promise<StandingFiring> {
    return this.op('Standing.RunNow', id);
  }
}
