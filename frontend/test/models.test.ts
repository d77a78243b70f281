// @vitest-environment jsdom
// The models screen: the store's progress math (speed, time left, resume)
// and the panel mounted in jsdom over a real ModelsStore and a transport
// whose answers the test gives.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ModelsPanel from '../src/components/ModelsPanel.svelte';
import { badges, durationLabel, ModelsStore, PullMeter, pullLabel, sizeLabel } from '../src/lib/models.svelte';
import type { ModelInfo, ModelsState, PullProgress } from '../src/lib/protocol';
import type { ModelsTransport } from '../src/lib/transport/models';

function model(over: Partial<ModelInfo> = {}): ModelInfo {
  return { name: 'qwen3:4b', size: 2_500_000_000, capabilities: ['completion', 'tools', 'thinking'], contextLength: 40960, loaded: false, modifiedMs: 0, ...over };
}
function reading(over: Partial<PullProgress> = {}): PullProgress {
  return { model: 'qwen3:8b', state: 'running', status: 'pulling 2bada8a74506', completed: 0, total: 5_200_000_000, atMs: 0, startedMs: 0, ...over };
}
const STATE: ModelsState = {
  installed: [model({ loaded: true }), model({ name: 'nomic-embed-text:latest', size: 274_302_450, capabilities: ['embedding'], contextLength: 2048 })],
  recommended: [
    { name: 'qwen3:4b', role: 'chat', summary: 'Chat with tools.', downloadSize: 2_500_000_000, installed: true },
    { name: 'qwen3:8b', role: 'chat', summary: 'Bigger.', downloadSize: 5_200_000_000, installed: false },
  ],
  pulls: [],
};

/** A transport whose pulls the test delivers with `send`. */
function host(state: ModelsState = STATE) {
  let listener: ((p: PullProgress) => void) | null = null;
  const t = {
    models: vi.fn(async () => structuredClone(state)),
    pullModel: vi.fn(async (name: string) => {
      if (name === 'bad name') throw new Error('not a valid Ollama model name: "bad name"');
    }),
    cancelPull: vi.fn(async () => {}),
    deleteModel: vi.fn(async () => {}),
    subscribePulls: vi.fn((f: (p: PullProgress) => void) => {
      listener = f;
      return () => (listener = null);
    }),
  } satisfies ModelsTransport;
  return { t, send: (p: PullProgress) => listener?.(p) };
}

describe('PullMeter', () => {
  it.each([
    ['one reading says nothing', [[0, 100]], 0],
    ['steady', [[0, 0], [1000, 1000], [2000, 2000]], 1000],
    ['a resumed pull counts only what came now', [[0, 2_000_000], [1000, 2_500_000]], 500_000],
    ['only the last five seconds', [[0, 0], [1000, 9000], [7000, 9600], [8000, 9700]], 100],
    ['a new pull of the name starts again', [[0, 0], [1000, 5000], [2000, 100], [3000, 300]], 200],
    ['no time between readings', [[5, 0], [5, 100]], 0],
  ] as const)('%s', (_name, readings, speed) => {
    const m = new PullMeter();
    for (const [at, bytes] of readings) m.add(at, bytes);
    expect(m.speed()).toBe(speed);
  });

  it('time left is what remains at the current speed, unknown without one', () => {
    const m = new PullMeter();
    m.add(0, 1000);
    expect(m.secondsLeft(1000, 5000)).toBeNull();
    m.add(2000, 3000); // 1000 B/s
    expect(m.secondsLeft(3000, 5000)).toBe(2);
    expect(m.secondsLeft(3000, 0)).toBeNull();
  });
});

describe('labels', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [4487, '4.5 KB'],
    [274_302_450, '274 MB'],
    [2_500_000_000, '2.5 GB'],
  ])('sizeLabel(%d) = %s', (n, want) => expect(sizeLabel(n)).toBe(want));

  it.each([
    [3.4, '3 s'],
    [60, '1 min'],
    [125, '2 min 5 s'],
    [3600, '1 h'],
    [3840, '1 h 4 min'],
  ])('durationLabel(%d) = %s', (s, want) => expect(durationLabel(s)).toBe(want));

  it('says each state of a pull', () => {
    expect(pullLabel(reading({ total: 0, status: 'pulling manifest' }), 0, null)).toBe('Asking the registry…');
    expect(pullLabel(reading({ completed: 1_200_000_000 }), 31_000_000, 72)).toBe('1.2 GB of 5.2 GB · 31.0 MB/s · 1 min 12 s left');
    expect(pullLabel(reading({ completed: 1_200_000_000 }), 0, null)).toBe('1.2 GB of 5.2 GB');
    expect(pullLabel(reading({ state: 'cancelled', completed: 1_200_000_000 }), 0, null)).toBe('Stopped at 1.2 GB of 5.2 GB; resuming keeps what was downloaded');
    expect(pullLabel(reading({ state: 'failed', error: 'Ollama could not reach the model registry: check the internet connection' }), 0, null)).toContain('internet connection');
    expect(pullLabel(reading({ state: 'done', completed: 5_200_000_000 }), 0, null)).toBe('Installed (5.2 GB)');
  });

  it('badges leave out completion and keep their order', () => {
    expect(badges({ capabilities: ['thinking', 'completion', 'vision', 'tools'] })).toEqual(['tools', 'thinking', 'vision']);
  });
});

describe('ModelsStore', () => {
  it('computes speed and time left from the readings, and resumes without counting the bytes already there', async () => {
    const { t, send } = host();
    const s = new ModelsStore(t);
    const stop = s.start();
    send(reading({ completed: 1_000_000_000, atMs: 10_000, startedMs: 9_000 }));
    expect(s.pullOf('qwen3:8b')?.speed).toBe(0);
    send(reading({ completed: 1_100_000_000, atMs: 11_000, startedMs: 9_000 }));
    let v = s.pullOf('qwen3:8b')!;
    expect(v.speed).toBe(100_000_000);
    expect(v.secondsLeft).toBe(41);
    expect(v.fraction).toBeCloseTo(1.1 / 5.2);
    send(reading({ state: 'cancelled', completed: 1_100_000_000, atMs: 11_500, startedMs: 9_000 }));
    expect(s.pullOf('qwen3:8b')?.label).toContain('Stopped at 1.1 GB');
    // The resumed pull starts at the bytes kept: no burst of 1.1 GB in a second.
    // The resumed pull starts as every pull does, before a layer is counted.
    send(reading({ status: 'starting', completed: 0, total: 0, atMs: 19_500, startedMs: 20_000 }));
    send(reading({ completed: 1_100_000_000, atMs: 20_000, startedMs: 20_000 }));
    expect(s.pullOf('qwen3:8b')?.speed).toBe(0);
    send(reading({ completed: 1_150_000_000, atMs: 21_000, startedMs: 20_000 }));
    v = s.pullOf('qwen3:8b')!;
    expect(v.speed).toBe(50_000_000);
    expect(s.pulls).toHaveLength(1);
    stop();
    expect(t.subscribePulls).toHaveBeenCalledTimes(1);
  });

  it('a pull that ends installed shows the list again; an older reading never replaces a newer one', async () => {
    const { t, send } = host();
    const s = new ModelsStore(t);
    s.start();
    await vi.waitFor(() => expect(s.installed).toHaveLength(2));
    send(reading({ completed: 100, atMs: 2000, startedMs: 1000 }));
    s.take(reading({ completed: 50, atMs: 1500, startedMs: 1000 }), false);
    expect(s.pullOf('qwen3:8b')?.progress.completed).toBe(100);
    send(reading({ state: 'done', completed: 5_200_000_000, atMs: 3000, startedMs: 1000 }));
    await vi.waitFor(() => expect(t.models).toHaveBeenCalledTimes(2));
  });

  it('says why a pull could not start, and what Ollama being down means', async () => {
    const { t } = host({ installed: [], recommended: STATE.recommended, pulls: [], error: 'Ollama is not running at http://127.0.0.1:11434: start it with `ollama serve`' });
    const s = new ModelsStore(t);
    await s.load();
    expect(s.error).toContain('Ollama is not running');
    expect(s.recommended).toHaveLength(2);
    expect(await s.pull('bad name')).toBe(false);
    expect(s.error).toContain('not a valid Ollama model name');
  });
});

const mounted: ReturnType<typeof mount>[] = [];
function render(t: ModelsTransport) {
  const target = document.createElement('div');
  document.body.appendChild(target);
  mounted.push(mount(ModelsPanel, { target, props: { host: t } }) as ReturnType<typeof mount>);
  flushSync();
  return target;
}
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
});
const q = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const all = (root: ParentNode, id: string) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
const settle = async () => {
  await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

describe('ModelsPanel', () => {
  it('lists installed models with badges, the loaded one, size and context', async () => {
    const { t } = host();
    const el = render(t);
    await settle();
    const rows = all(el, 'model-row');
    expect(rows.map((r) => r.dataset.name)).toEqual(['qwen3:4b', 'nomic-embed-text:latest']);
    expect(all(rows[0], 'model-badge').map((b) => b.textContent)).toEqual(['tools', 'thinking']);
    expect(q(rows[0], 'model-loaded')?.textContent).toBe('loaded');
    expect(q(rows[0], 'model-size')?.textContent).toBe('2.5 GB');
    expect(q(rows[0], 'model-context')?.textContent).toBe('40,960 tokens of context');
    expect(all(rows[1], 'model-badge').map((b) => b.textContent)).toEqual(['embedding']);
    expect(q(rows[1], 'model-loaded')).toBeNull();
  });

  it('deletes only after the confirmation', async () => {
    const { t } = host();
    const el = render(t);
    await settle();
    q(all(el, 'model-row')[1], 'model-delete')!.click();
    flushSync();
    expect(q(document.body, 'confirm-dialog')?.textContent).toContain('frees 274 MB');
    q(document.body, 'confirm-cancel')!.click();
    flushSync();
    expect(t.deleteModel).not.toHaveBeenCalled();
    q(all(el, 'model-row')[1], 'model-delete')!.click();
    flushSync();
    q(document.body, 'confirm-delete')!.click();
    await settle();
    expect(t.deleteModel).toHaveBeenCalledWith('nomic-embed-text:latest');
    expect(t.models).toHaveBeenCalledTimes(2);
  });

  it('pulls by name with a bar, speed and time left; cancel, then resume', async () => {
    const { t, send } = host();
    const el = render(t);
    await settle();
    const input = q(el, 'pull-name') as HTMLInputElement;
    input.value = 'qwen3:8b';
    input.dispatchEvent(new Event('input'));
    q(el, 'pull-start')!.click();
    await settle();
    expect(t.pullModel).toHaveBeenCalledWith('qwen3:8b');
    send(reading({ completed: 1_000_000_000, atMs: 1000, startedMs: 1000 }));
    send(reading({ completed: 1_300_000_000, atMs: 2000, startedMs: 1000 }));
    flushSync();
    const row = q(el, 'pull-row')!;
    expect(row.dataset.state).toBe('running');
    expect(q(row, 'pull-bar')?.getAttribute('aria-valuenow')).toBe('25');
    expect(q(row, 'pull-status')?.textContent).toBe('1.3 GB of 5.2 GB · 300 MB/s · 13 s left');
    q(row, 'pull-cancel')!.click();
    await settle();
    expect(t.cancelPull).toHaveBeenCalledWith('qwen3:8b');
    send(reading({ state: 'cancelled', completed: 1_300_000_000, atMs: 2100, startedMs: 1000 }));
    flushSync();
    q(el, 'pull-resume')!.click();
    await settle();
    expect(t.pullModel).toHaveBeenLastCalledWith('qwen3:8b');
  });

  it('offers the recommended models not installed, with their size, in one click', async () => {
    const { t, send } = host();
    const el = render(t);
    await settle();
    const [small, large] = all(el, 'recommended-row');
    expect(q(small, 'recommended-installed')?.textContent).toBe('Installed');
    expect(q(large, 'recommended-pull')?.textContent?.trim()).toBe('Download (5.2 GB)');
    q(large, 'recommended-pull')!.click();
    await settle();
    expect(t.pullModel).toHaveBeenCalledWith('qwen3:8b');
    send(reading({ completed: 10, atMs: 1, startedMs: 1 }));
    flushSync();
    expect((q(large, 'recommended-pull') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows a failed pull in words with a way to try again', async () => {
    const { t, send } = host();
    const el = render(t);
    await settle();
    send(reading({ state: 'failed', problem: 'offline', error: 'Ollama could not reach the model registry: check the internet connection, then pull qwen3:8b again (what was downloaded is kept).' }));
    flushSync();
    expect(q(el, 'pull-status')?.textContent).toContain('check the internet connection');
    expect(q(el, 'pull-resume')?.textContent?.trim()).toBe('Try again');
  });
});
