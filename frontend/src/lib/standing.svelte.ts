// The Standing tasks panel's state: every task with its schedule, last and
// next firing and what its last batch proposed and the user kept. Every
// action (add, edit, pause, resume, remove, run now) asks the host and then
// shows the host's list again, so the panel never shows what Quire does not
// hold; a failure keeps the list and shows the host's sentence.
import { HostList } from './hostlist.svelte';
import type { StandingSchedule, StandingSummary, StandingTask } from './protocol';
import { standingList, type StandingTransport } from './transport/standing';

/** A new task's fields as the form holds them. */
export interface StandingDraft {
  name: string;
  folder: string;
  instruction: string;
  kind: StandingSchedule['kind'];
  at: string;
  weekday: string;
  more: number;
}

export const emptyDraft = (): StandingDraft => ({ name: '', folder: 'inbox', instruction: '', kind: 'daily', at: '18:00', weekday: 'monday', more: 20 });

/** The draft as the task the host takes. */
export function draftTask(d: StandingDraft, base?: StandingTask): StandingTask {
  const schedule: StandingSchedule = { kind: d.kind };
  if (d.kind === 'daily' || d.kind === 'weekly') schedule.at = d.at.trim();
  if (d.kind === 'weekly') schedule.weekday = d.weekday;
  if (d.kind === 'over') schedule.more = d.more;
  return {
    id: base?.id ?? '',
    name: d.name.trim(),
    folder: d.folder.trim(),
    instruction: d.instruction.trim() || undefined,
    schedule,
    budget: base?.budget ?? { modelCalls: 0, tokens: 0, notes: 0 },
    paused: base?.paused,
    createdMs: base?.createdMs ?? 0,
  };
}

/** A task back into the form, to edit it. */
export function taskDraft(t: StandingTask): StandingDraft {
  return {
    name: t.name,
    folder: t.folder,
    instruction: t.instruction ?? '',
    kind: t.schedule.kind,
    at: t.schedule.at ?? '18:00',
    weekday: t.schedule.weekday ?? 'monday',
    more: t.schedule.more ?? 20,
  };
}

/** What the task's last batch did, in words ("" before its first firing). */
export function lastLine(s: StandingSummary): string {
  const f = s.last;
  if (!f) return 'Not fired yet.';
  const when = new Date(f.startedMs).toLocaleString();
  switch (f.step) {
    case 'proposed':
      if (s.waiting) return `${when}: ${s.proposed} proposals wait for your review.`;
      if (s.batch && (s.batch.state === 'running' || s.batch.state === 'paused')) return `${when}: its batch is working.`;
      return `${when}: ${s.proposed} proposed, you kept ${s.kept}.`;
    case 'failed':
      return `${when}: it could not start: ${f.error ?? ''}`;
    case 'skipped':
      return `${when}: held back: ${f.error ?? ''}`;
    case 'interrupted':
      return `${when}: Quire stopped before its batch was made; it runs again.`;
    default:
      return `${when}: starting.`;
  }
}

export class StandingStore extends HostList<StandingSummary[]> {
  tasks = $state<StandingSummary[]>([]);

  constructor(private readonly host: StandingTransport) {
    super();
  }

  protected fetch(): Promise<StandingSummary[]> {
    return this.host.standingTasks().then(standingList);
  }
  protected show(l: StandingSummary[]) {
    this.tasks = l;
  }

  /** A batch of a standing task waits for the user's review. */
  get waiting(): boolean {
    return this.tasks.some((s) => s.waiting);
  }

  add(d: StandingDraft): Promise<boolean> {
    return this.act('add', () => this.host.addStandingTask(draftTask(d)));
  }
  edit(base: StandingTask, d: StandingDraft): Promise<boolean> {
    return this.act(base.id, () => this.host.editStandingTask(draftTask(d, base)));
  }
  pause(id: string, paused: boolean): Promise<boolean> {
    return this.act(id, () => this.host.pauseStandingTask(id, paused));
  }
  remove(id: string): Promise<boolean> {
    return this.act(id, () => this.host.removeStandingTask(id));
  }
  run(id: string): Promise<boolean> {
    return this.act(id, () => this.host.runStandingTask(id));
  }
}
