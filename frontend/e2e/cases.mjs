// The e2e cases, by feature (cases/*.mjs; what they share is helpers.mjs),
// in the order they run: one backend serves the whole run, and a case may
// build on what an earlier one left (settings-pull-chat on
// first-run-download's model), so the order is written here once, and
// test/e2e/browser_test.go expects exactly these slugs in this order.
import { cases as chat } from './cases/chat.mjs';
import { cases as setup } from './cases/setup.mjs';
import { cases as wails } from './cases/wails.mjs';
import { cases as tools } from './cases/tools.mjs';
import { cases as notes } from './cases/notes.mjs';
import { cases as documents } from './cases/documents.mjs';
import { cases as insight } from './cases/insight.mjs';
import { cases as standing } from './cases/standing.mjs';

const order = [
  'send-stream', 'sessions', 'doctor-banner', 'first-run-download', 'settings-pull-chat', 'reload',
  'run-error', 'stop', 'wails', 'wails-handshake-refused', 'protocol', 'send-retry', 'tool-card',
  'permission-deny', 'permission-allow', 'steer', 'queue', 'wails-permission', 'notes-folder',
  'wails-notes-folder', 'plan', 'unsure', 'move-undo', 'documents-panel', 'documents-cancel',
  'wails-drop', 'compaction-marker', 'memory-panel', 'models-panel', 'documents-e2e',
  'search-jump', 'export-md', 'citations', 'question-forget', 'question-long', 'secret', 'exfil',
  'early-words', 'empty-retry', 'settings', 'documents-embedder', 'changes-undo', 'branch-edit',
  'branch-regenerate', 'continue-killed', 'inspector', 'batch-review', 'evolution', 'comfort',
  'mcp-tool', 'skills-settings', 'settings-runner', 'standing-tasks',
];

const bySlug = new Map([...chat, ...setup, ...wails, ...tools, ...notes, ...documents, ...insight, ...standing].map((c) => [c.slug, c]));
if (bySlug.size !== order.length || order.some((s) => !bySlug.has(s))) {
  throw new Error(`cases.mjs: the order lists ${order.length} cases, the files hold ${bySlug.size}: every case is listed once`);
}

export const cases = order.map((s) => bySlug.get(s));
