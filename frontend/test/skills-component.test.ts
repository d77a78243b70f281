// @vitest-environment jsdom
// Settings → Skills mounted in jsdom over a real SkillsStore and a host
// whose answers the test gives: each skill with its source, switch and
// reason; a switch flipped reaches the host and the host's list is shown;
// an install's refusal is said; a broken folder is shown with what to fix.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import SkillsSettings from '../src/components/SkillsSettings.svelte';
import type { SkillInfo, SkillList } from '../src/lib/protocol';
import type { SkillsTransport } from '../src/lib/transport/skills';

const mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
});

function skill(name: string, over: Partial<SkillInfo> = {}): SkillInfo {
  return { name, description: `About ${name}.`, source: 'builtin', enabled: true, requires: { model: ['tools'], mcp: [], notes: true }, files: [], ...over };
}

class Host implements SkillsTransport {
  off = new Set<string>();
  async skills(): Promise<SkillList> {
    return {
      skills: [
        skill('meeting-notes', { enabled: !this.off.has('meeting-notes') }),
        skill('standup', { source: 'user', enabled: !this.off.has('standup'), unavailable: "Needs the MCP server 'calendar', which is not running: start it in Settings → Extensions.", requires: { model: [], mcp: ['calendar'], notes: false } }),
      ],
      problems: [{ folder: 'junk', reason: 'The folder has no SKILL.md: a skill is a folder with a SKILL.md file at its top.' }],
      folder: '/home/ann/.local/share/quire/skills',
    };
  }
  setSkillEnabled = vi.fn(async (name: string, on: boolean) => {
    if (on) this.off.delete(name);
    else this.off.add(name);
  });
  installSkill = vi.fn(async (): Promise<SkillInfo> => {
    throw new Error('The folder has no SKILL.md: a skill is a folder with a SKILL.md file at its top.');
  });
}

const q = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);

describe('SkillsSettings', () => {
  it('lists, switches and installs through the host', async () => {
    const host = new Host();
    const target = document.createElement('div');
    document.body.appendChild(target);
    mounted.push(mount(SkillsSettings, { target, props: { host } }));
    await vi.waitFor(() => expect(q('skill-meeting-notes')).not.toBeNull());
    flushSync();
    expect(q('skill-meeting-notes')!.dataset.state).toBe('on');
    expect(q('skill-meeting-notes')!.textContent).toContain('Shipped with Quire. Needs a model that takes tools, a notes folder.');
    expect(q('skill-standup')!.dataset.state).toBe('unavailable');
    expect(q('skill-unavailable-standup')!.textContent).toContain("Needs the MCP server 'calendar'");
    expect(q('skill-problem-junk')!.textContent).toContain('junk: The folder has no SKILL.md');
    expect(document.body.textContent).toContain('/home/ann/.local/share/quire/skills');

    const toggle = q('skill-toggle-meeting-notes') as HTMLInputElement;
    toggle.checked = false;
    toggle.dispatchEvent(new Event('change', { bubbles: true }));
    await vi.waitFor(() => expect(q('skill-meeting-notes')!.dataset.state).toBe('off'));
    expect(host.setSkillEnabled).toHaveBeenCalledWith('meeting-notes', false);

    const install = q('skill-install') as HTMLButtonElement;
    expect(install.disabled).toBe(true); // no folder typed
    const dir = q('skill-install-dir') as HTMLInputElement;
    dir.value = '/home/ann/Downloads/not-a-skill';
    dir.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    expect(install.disabled).toBe(false);
    install.click();
    await vi.waitFor(() => expect(q('skills-error')?.textContent).toContain('has no SKILL.md'));
    expect(host.installSkill).toHaveBeenCalledWith('/home/ann/Downloads/not-a-skill');
    expect(dir.value).toBe('/home/ann/Downloads/not-a-skill'); // kept to fix
    expect(q('skill-installed')).toBeNull();
  });
});
