// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { buildSnapshot, readMemory } from '../src/lib/snapshot';

function dom(html: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = html;
  return root;
}

describe('the probe sees the memory panel', () => {
  it('reports its items while it is open, and nothing when it is closed', () => {
    const open = dom(`<div data-testid="memory-panel">
      <li data-testid="memory-item" data-kind="preference" data-status="kept"><p data-testid="memory-text"> Tags are
        lower-case. </p></li>
      <li data-testid="memory-item" data-kind="fact" data-status="pending"><p data-testid="memory-text">Plot 14.</p></li>
    </div>`);
    expect(readMemory(open)).toEqual([
      { kind: 'preference', status: 'kept', text: 'Tags are lower-case.' },
      { kind: 'fact', status: 'pending', text: 'Plot 14.' },
    ]);
    expect(readMemory(dom('<div data-testid="memory-panel"></div>'))).toEqual([]);
    expect(readMemory(dom('<li data-testid="memory-item"></li>'))).toBeNull();
    const state = { activeSession: null, sessionTitles: [], streaming: false };
    expect(buildSnapshot(state, open).memory).toHaveLength(2);
    expect('memory' in buildSnapshot(state, dom(''))).toBe(false);
  });
});
