// Settings → Skills' state: the installed skill packages, each with where it
// comes from, its switch and why it is not offered; the folders of the
// skills folder that are not skills; and "Install from folder". Every action
// asks the host and then shows the host's list again, so the section never
// shows what Quire does not hold; a failure keeps the list as it was and
// shows the host's sentence.
import { HostList } from './hostlist.svelte';
import type { SkillInfo, SkillList, SkillProblem } from './protocol';
import type { SkillsTransport } from './transport/skills';

/** Where a skill comes from, as the section says it. */
export function sourceLabel(s: Pick<SkillInfo, 'source' | 'replaces'>): string {
  if (s.source === 'builtin') return 'Shipped with Quire';
  if (s.source === 'evolution') {
    return s.replaces ? 'Activated in Improvements (replaces the skill of this name)' : 'Activated in Improvements';
  }
  return s.replaces ? 'Your skills folder (replaces the shipped one)' : 'Your skills folder';
}

/** What the model is offered of a skill: on, off, or on but unavailable (the reason says why). */
export function skillState(s: Pick<SkillInfo, 'enabled' | 'unavailable'>): 'on' | 'off' | 'unavailable' {
  if (!s.enabled) return 'off';
  return s.unavailable ? 'unavailable' : 'on';
}

/** What a skill needs, in words ("" when nothing). */
export function needsLine(s: Pick<SkillInfo, 'requires'>): string {
  const r = s.requires;
  const parts = [
    ...(r.model ?? []).map((c) => (c === 'tools' ? 'a model that takes tools' : `a model with ${c}`)),
    ...(r.mcp ?? []).map((m) => `the MCP server ${m}`),
    ...(r.notes ? ['a notes folder'] : []),
  ];
  return parts.length ? `Needs ${parts.join(', ')}.` : '';
}

export class SkillsStore extends HostList<SkillList> {
  skills = $state<SkillInfo[]>([]);
  problems = $state<SkillProblem[]>([]);
  folder = $state('');
  /** The name of the skill installed last, for the section to say so. */
  installed = $state<string | null>(null);

  // busy is the name of the skill whose switch is going, or "install".
  constructor(private readonly host: SkillsTransport) {
    super();
  }

  protected fetch(): Promise<SkillList> {
    return this.host.skills();
  }
  protected show(l: SkillList) {
    this.skills = l.skills ?? [];
    this.problems = l.problems ?? [];
    this.folder = l.folder;
  }

  /** Turns a skill on or off; resolves true when the host kept it. */
  toggle(name: string, on: boolean): Promise<boolean> {
    return this.act(name, () => this.host.setSkillEnabled(name, on));
  }
  /** Installs the folder; resolves true when the host copied it. */
  install(dir: string): Promise<boolean> {
    this.installed = null;
    return this.act('install', async () => {
      const info = await this.host.installSkill(dir);
      this.installed = info.name;
    });
  }
}
