// Settings → Skills' state and the two transports' skills methods: the
// store over a host that behaves like Go's (a set of turned-off names, an
// install refused twice), the HTTP routes against a tiny stand-in server,
// and the Wails bindings (an older window without them says so).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsLine, SkillsStore, skillState, sourceLabel } from '../src/lib/skills.svelte';
import type { SkillInfo, SkillList } from '../src/lib/protocol';
import { HttpTransport } from '../src/lib/transport/http';
import { NO_SKILL_FOLDER, skillList, type SkillsTransport } from '../src/lib/transport/skills';
import { WailsTransport } from '../src/lib/transport/wails';
import { bareApp } from './wailsapp';

function skill(name: string, over: Partial<SkillInfo> = {}): SkillInfo {
  return { name, description: `About ${name}.`, source: 'builtin', enabled: true, requires: { model: ['tools'], mcp: [], notes: true }, files: [], ...over };
}

/** A host like Go's: shipped skills, a turned-off set, the user's folder. */
class FakeSkills implements SkillsTransport {
  off = new Set<string>();
  user: SkillInfo[] = [];
  calls: string[] = [];
  async skills(): Promise<SkillList> {
    this.calls.push('skills');
    const all = [skill('meeting-notes'), skill('weekly-review'), ...this.user];
    return { skills: all.map((s) => ({ ...s, enabled: !this.off.has(s.name) })), problems: [{ folder: 'junk', reason: 'The folder has no SKILL.md.' }], folder: '/d/skills' };
  }
  async setSkillEnabled(name: string, on: boolean): Promise<void> {
    this.calls.push(`set ${name} ${on}`);
    if (!['meeting-notes', 'weekly-review', ...this.user.map((u) => u.name)].includes(name)) throw new Error(`No skill named "${name}" is installed: reload the list of skills.`);
    if (on) this.off.delete(name);
    else this.off.add(name);
  }
  async installSkill(dir: string): Promise<SkillInfo> {
    this.calls.push(`install ${dir}`);
    const name = dir.split('/').pop()!;
    if (this.user.some((u) => u.name === name)) throw new Error(`A skill named ${name} is installed already: remove that folder first to replace it.`);
    const s = skill(name, { source: 'user', unavailable: "Needs the MCP server 'calendar', which is not running: start it in Settings → Extensions." });
    this.user.push(s);
    return s;
  }
}

describe('the section says', () => {
  it.each([
    [{ source: 'builtin' as const }, 'Shipped with Quire'],
    [{ source: 'user' as const }, 'Your skills folder'],
    [{ source: 'user' as const, replaces: true }, 'Your skills folder (replaces the shipped one)'],
    [{ source: 'evolution' as const }, 'Activated in Improvements'],
    [{ source: 'evolution' as const, replaces: true }, 'Activated in Improvements (replaces the skill of this name)'],
  ])('where %o comes from: %s', (s, want) => expect(sourceLabel(s)).toBe(want));
  it.each([
    [{ enabled: true }, 'on'],
    [{ enabled: false, unavailable: 'Needs a notes folder.' }, 'off'],
    [{ enabled: true, unavailable: 'Needs a notes folder.' }, 'unavailable'],
  ])('the state of %o: %s', (s, want) => expect(skillState(s)).toBe(want));
  it.each([
    [{ model: ['tools'], mcp: ['calendar'], notes: true }, 'Needs a model that takes tools, the MCP server calendar, a notes folder.'],
    [{ model: ['vision'], mcp: [], notes: false }, 'Needs a model with vision.'],
    [{ model: [], mcp: [], notes: false }, ''],
  ])('what %o needs', (requires, want) => expect(needsLine({ requires })).toBe(want));
});

describe('SkillsStore', () => {
  it('shows the host list after each action, and the host sentence when one fails', async () => {
    const host = new FakeSkills();
    const st = new SkillsStore(host);
    await st.load();
    expect(st.skills.map((s) => `${s.name}:${skillState(s)}`)).toEqual(['meeting-notes:on', 'weekly-review:on']);
    expect(st.problems).toEqual([{ folder: 'junk', reason: 'The folder has no SKILL.md.' }]);
    expect(st.folder).toBe('/d/skills');

    expect(await st.toggle('weekly-review', false)).toBe(true);
    expect(st.skills.find((s) => s.name === 'weekly-review')?.enabled).toBe(false);

    expect(await st.install('/home/ann/standup')).toBe(true);
    expect(st.installed).toBe('standup');
    expect(skillState(st.skills.find((s) => s.name === 'standup')!)).toBe('unavailable');

    expect(await st.install('/home/ann/standup')).toBe(false);
    expect(st.error).toContain('installed already');
    expect(st.installed).toBeNull();
    expect(st.skills).toHaveLength(3); // the list as it was

    expect(await st.toggle('nope', true)).toBe(false);
    expect(st.error).toContain('No skill named "nope"');
    expect(st.busy).toBeNull();
    expect(host.calls).toEqual(['skills', 'set weekly-review false', 'skills', 'install /home/ann/standup', 'skills', 'install /home/ann/standup', 'set nope true']);
  });
});

describe('skillList', () => {
  it('fills in what Go wrote as null', () => {
    expect(skillList(null)).toEqual({ skills: [], problems: [], folder: '' });
    const l = skillList({ skills: [{ ...skill('a'), files: null as never, requires: { model: null as never, mcp: null as never, notes: false } }], problems: null, folder: '/f' });
    expect(l.skills![0].files).toEqual([]);
    expect(l.skills![0].requires).toEqual({ model: [], mcp: [], notes: false });
  });
});

describe('HttpTransport skills', () => {
  let server: Server;
  let base = '';
  const seen: { method: string; url: string; body: unknown }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body: data ? JSON.parse(data) : undefined });
        const route = `${req.method} ${req.url}`;
        const args = data ? JSON.parse(data) : [];
        if (route === 'POST /api/op/Skills.SkillList') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ skills: [skill('weekly-review')], problems: null, folder: '/d/skills' }));
        } else if (route === 'POST /api/op/Skills.SetSkillEnabled' && args[0] === 'weekly-review') {
          res.writeHead(204);
          res.end();
        } else if (route === 'POST /api/op/Skills.InstallSkill') {
          res.writeHead(409, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: 'A skill named x is installed already: remove that folder first to replace it.' }));
        } else {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: `No skill named "${args[0]}" is installed.` }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('posts the operations to their derived routes and rejects with the server sentence', async () => {
    const t = new HttpTransport(base);
    const l = await t.skills();
    expect(l.problems).toEqual([]);
    expect(l.skills![0].name).toBe('weekly-review');
    await t.setSkillEnabled('weekly-review', false);
    await expect(t.setSkillEnabled('a b', true)).rejects.toThrow('No skill named "a b"');
    await expect(t.installSkill('/x')).rejects.toThrow('installed already');
    await expect(t.installSkill('  ')).rejects.toThrow(NO_SKILL_FOLDER);
    expect(seen.map((s) => `${s.method} ${s.url} ${JSON.stringify(s.body ?? null)}`)).toEqual([
      'POST /api/op/Skills.SkillList []',
      'POST /api/op/Skills.SetSkillEnabled ["weekly-review",false]',
      'POST /api/op/Skills.SetSkillEnabled ["a b",true]',
      'POST /api/op/Skills.InstallSkill ["/x"]',
    ]);
  });
});

describe('WailsTransport skills', () => {
  it('calls the operations through Op after the handshake', async () => {
    const order: string[] = [];
    const t = new WailsTransport(
      {
        ...bareApp({
          'Skills.SkillList': () => {
            order.push('Skills');
            return { skills: null, problems: null, folder: '/d/skills' };
          },
          'Skills.SetSkillEnabled': (name: string, on: boolean) => {
            order.push(`SetSkillEnabled ${name} ${on}`);
          },
          'Skills.InstallSkill': () => Promise.reject('The folder has no SKILL.md: a skill is a folder with a SKILL.md file at its top.'),
        }),
        Handshake: async () => {
          order.push('Handshake');
          return '1.0';
        },
      },
      undefined,
    );
    expect(await t.skills()).toEqual({ skills: [], problems: [], folder: '/d/skills' });
    await t.setSkillEnabled('weekly-review', true);
    await expect(t.installSkill('/x')).rejects.toThrow('has no SKILL.md');
    await expect(t.installSkill('')).rejects.toThrow(NO_SKILL_FOLDER);
    expect(order).toEqual(['Handshake', 'Skills', 'SetSkillEnabled weekly-review true']);
  });
});
