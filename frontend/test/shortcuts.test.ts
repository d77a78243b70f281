// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { Item } from '../src/lib/conversation';
import { isTextField, keysLabel, lastUserText, matches, ShortcutRegistry, type Shortcut } from '../src/lib/shortcuts';

type Ev = { key: string; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean; shiftKey?: boolean };
const ev = (e: Ev) => ({ ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...e });

describe('matches', () => {
  it.each([
    { keys: 'Escape', e: { key: 'Escape' }, want: true },
    { keys: 'Escape', e: { key: 'Escape', ctrlKey: true }, want: false },
    { keys: 'Mod+n', e: { key: 'n', ctrlKey: true }, want: true },
    { keys: 'Mod+n', e: { key: 'N', ctrlKey: true }, want: true },
    { keys: 'Mod+n', e: { key: 'n', metaKey: true }, want: true },
    { keys: 'Mod+n', e: { key: 'n' }, want: false },
    { keys: 'Mod+n', e: { key: 'n', ctrlKey: true, altKey: true }, want: false },
    { keys: 'Mod+,', e: { key: ',', ctrlKey: true }, want: true },
    { keys: 'Mod++', e: { key: '+', ctrlKey: true, shiftKey: true }, want: true },
    { keys: '?', e: { key: '?', shiftKey: true }, want: true },
    { keys: '?', e: { key: '/' }, want: false },
    { keys: 'ArrowUp', e: { key: 'ArrowUp' }, want: true },
    { keys: 'ArrowUp', e: { key: 'ArrowUp', shiftKey: true }, want: false },
    { keys: 'Mod+Shift+k', e: { key: 'K', ctrlKey: true, shiftKey: true }, want: true },
    { keys: 'Mod+Shift+k', e: { key: 'k', ctrlKey: true }, want: false },
  ])('$keys vs $e.key', ({ keys, e, want }) => {
    expect(matches(keys, ev(e))).toBe(want);
  });
});

describe('keysLabel', () => {
  it.each([
    { keys: 'Escape', mac: false, want: 'Esc' },
    { keys: 'Mod+n', mac: false, want: 'Ctrl+N' },
    { keys: 'Mod+n', mac: true, want: '⌘+N' },
    { keys: 'Mod+,', mac: false, want: 'Ctrl+,' },
    { keys: 'ArrowUp', mac: false, want: '↑' },
    { keys: '?', mac: false, want: '?' },
    { keys: 'Mod+Shift+k', mac: false, want: 'Ctrl+Shift+K' },
  ])('$keys', ({ keys, mac, want }) => {
    expect(keysLabel(keys, mac)).toBe(want);
  });
});

describe('isTextField', () => {
  it.each([
    { html: '<textarea></textarea>', want: true },
    { html: '<input>', want: true },
    { html: '<input type="search">', want: true },
    { html: '<input type="checkbox">', want: false },
    { html: '<button></button>', want: false },
    { html: '<div></div>', want: false },
  ])('$html', ({ html, want }) => {
    const box = document.createElement('div');
    box.innerHTML = html;
    expect(isTextField(box.firstElementChild)).toBe(want);
  });
});

function keydown(key: string, init: KeyboardEventInit = {}, target: EventTarget = document.body): KeyboardEvent {
  const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  Object.defineProperty(e, 'target', { value: target });
  return e;
}

describe('ShortcutRegistry', () => {
  function registry(...list: Partial<Shortcut>[]) {
    const r = new ShortcutRegistry();
    const ran: string[] = [];
    // Each shortcut records its label when it runs.
    const offs = list.map((s, i) => {
      const label = s.label ?? `s${i}`;
      return r.register({ id: `s${i}`, keys: 'Escape', ...s, label, run: () => ran.push(label) });
    });
    return { r, ran, offs };
  }

  it.each([
    { name: 'a plain key outside a text field', s: { keys: '?' }, key: '?', init: { shiftKey: true }, inField: false, ran: true },
    { name: 'a plain key while typing', s: { keys: '?' }, key: '?', init: { shiftKey: true }, inField: true, ran: false },
    { name: 'an inText key while typing', s: { keys: 'Escape', inText: true }, key: 'Escape', init: {}, inField: true, ran: true },
    { name: 'another key', s: { keys: 'Escape' }, key: 'Enter', init: {}, inField: false, ran: false },
    { name: 'when says no', s: { keys: 'Escape', when: () => false }, key: 'Escape', init: {}, inField: false, ran: false },
  ])('$name', ({ s, key, init, inField, ran }) => {
    const { r, ran: got } = registry({ label: 'it', ...s });
    const e = keydown(key, init, inField ? document.createElement('textarea') : document.body);
    expect(r.handle(e)).toBe(ran);
    expect(got).toEqual(ran ? ['it'] : []);
    expect(e.defaultPrevented).toBe(ran);
  });

  it('leaves a key a focused part already handled', () => {
    const { r, ran } = registry({ label: 'stop' });
    const e = keydown('Escape');
    e.preventDefault();
    expect(r.handle(e)).toBe(false);
    expect(ran).toEqual([]);
  });

  it('a later registration of an id overrides, and its removal restores', () => {
    const { r, ran, offs } = registry({ id: 'x', label: 'first' }, { id: 'x', label: 'second' });
    expect(r.list().map((s) => s.label)).toEqual(['second']);
    r.handle(keydown('Escape'));
    offs[1]();
    r.handle(keydown('Escape'));
    expect(ran).toEqual(['second', 'first']);
    offs[0]();
    expect(r.list()).toEqual([]);
  });

  it('a fallback gives way whatever the order', () => {
    const { r, offs } = registry({ id: 'edit', label: 'real' }, { id: 'edit', label: 'put back', fallback: true });
    expect(r.list().map((s) => s.label)).toEqual(['real']);
    offs[0]();
    expect(r.list().map((s) => s.label)).toEqual(['put back']);
  });

  it('tells its listeners of each change', () => {
    const r = new ShortcutRegistry();
    let heard = 0;
    const stop = r.subscribe(() => heard++);
    const off = r.register({ id: 'a', keys: 'Escape', label: 'a', run: () => {} });
    off();
    off(); // a second removal changes nothing
    stop();
    r.register({ id: 'b', keys: 'Escape', label: 'b', run: () => {} });
    expect(heard).toBe(2);
  });

  it('the first matching shortcut that applies runs, only it', () => {
    const { r, ran } = registry({ id: 'a', label: 'a', when: () => false }, { id: 'b', label: 'b' }, { id: 'c', label: 'c' });
    r.handle(keydown('Escape'));
    expect(ran).toEqual(['b']);
  });
});

describe('lastUserText', () => {
  const item = (kind: Item['kind'], text: string, key: number): Item => ({ key, kind, text, streaming: false });
  it.each([
    { items: [], want: '' },
    { items: [item('assistant', 'hi', 1)], want: '' },
    { items: [item('user', 'one', 1), item('assistant', 'a', 2), item('user', 'two', 3), item('assistant', 'b', 4)], want: 'two' },
  ])('$want', ({ items, want }) => {
    expect(lastUserText(items)).toBe(want);
  });
});
