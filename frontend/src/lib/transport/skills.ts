// The skills' part of the Transport (transport.ts extends it): Settings →
// Skills lists the installed skill packages, turns one on or off, and
// installs a folder — the same methods over Wails bindings (wails.ts) and
// HTTP (http.ts, /api/op). Every method rejects with an Error whose
// message is a sentence for the user.
import type { SkillInfo, SkillList } from '../protocol';

/** Why installing fails without a folder. */
export const NO_SKILL_FOLDER = 'Type the full path of the skill folder (the one with SKILL.md), like /home/you/skills/standup.';

export interface SkillsTransport {
  /** Every installed skill, the folders that are not skills, and the skills folder. */
  skills(): Promise<SkillList>;
  /** Turns a skill on or off for the conversations' next runs. */
  setSkillEnabled(name: string, on: boolean): Promise<void>;
  /** Copies the skill folder `dir` (an absolute path) into the skills folder. */
  installSkill(dir: string): Promise<SkillInfo>;
}

/** A list from a host, with the arrays the section relies on (Go writes empty ones as null). */
export function skillList(r: Partial<SkillList> | null | undefined): SkillList {
  return {
    skills: (r?.skills ?? []).map((s) => ({
      ...s,
      files: s.files ?? [],
      requires: { model: s.requires?.model ?? [], mcp: s.requires?.mcp ?? [], notes: !!s.requires?.notes },
    })),
    problems: r?.problems ?? [],
    folder: r?.folder ?? '',
  };
}
