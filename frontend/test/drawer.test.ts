// @vitest-environment jsdom
// The sidebar's drawer frame (SidebarDrawer.svelte), mounted in jsdom: the
// models screen, "Organise a folder" and "Improvements" all open in it, so
// its keyboard, focus and naming are checked once here.
import { createRawSnippet, flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import SidebarDrawer from '../src/components/SidebarDrawer.svelte';

const mounted: ReturnType<typeof mount>[] = [];
afterEach(() => {
  mounted.splice(0).forEach((m) => unmount(m));
  document.body.innerHTML = '';
});

const body = createRawSnippet(() => ({ render: () => '<p data-testid="drawer-body">inside</p>' }));
const q = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);

function open(waiting = '') {
  const onshow = vi.fn();
  const onhide = vi.fn();
  const target = document.createElement('div');
  document.body.appendChild(target);
  mounted.push(mount(SidebarDrawer, { target, props: { label: 'Organise a folder', testid: 'x', waiting, onshow, onhide, children: body } }));
  flushSync();
  q('x-open')!.click();
  flushSync();
  return { onshow, onhide };
}

const esc = () => {
  window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
  flushSync();
};

describe('SidebarDrawer', () => {
  it('opens a named modal dialog with the focus on its close button, and gives the focus back when it closes', () => {
    const { onshow, onhide } = open();
    const dialog = q('x-dialog')!;
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-label')).toBe('Organise a folder');
    expect(q('drawer-body')?.textContent).toBe('inside');
    expect(document.activeElement).toBe(q('x-close'));
    expect(onshow).toHaveBeenCalledOnce();
    q('x-close')!.click();
    flushSync();
    expect(q('x-dialog')).toBeNull();
    expect(onhide).toHaveBeenCalledOnce();
    expect(document.activeElement).toBe(q('x-open'));
  });

  it.each([
    ['Esc', () => esc()],
    ['a click on the backdrop', () => (q('x-dialog')!.parentElement as HTMLElement).click()],
  ])('closes on %s', (_, close) => {
    const { onhide } = open();
    close();
    flushSync();
    expect(q('x-dialog')).toBeNull();
    expect(onhide).toHaveBeenCalledOnce();
  });

  it('leaves Esc to a dialog open over it, and stays open on a click inside', () => {
    const { onhide } = open();
    q('drawer-body')!.click();
    flushSync();
    const confirm = document.createElement('div');
    confirm.setAttribute('role', 'alertdialog');
    document.body.appendChild(confirm);
    esc();
    expect(q('x-dialog')).not.toBeNull();
    confirm.remove();
    esc();
    expect(q('x-dialog')).toBeNull();
    expect(onhide).toHaveBeenCalledOnce();
  });

  it.each([
    ['', false],
    ['A batch is waiting for your review', true],
  ])('marks the button when something waits (%j)', (waiting, dot) => {
    open(waiting);
    expect(q('x-waiting') !== null).toBe(dot);
    if (dot) expect(q('x-waiting')!.title).toBe(waiting);
  });
});
