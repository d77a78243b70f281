// The window's keyboard shortcuts, in one registry: App.svelte listens for
// keys once (on the window) and asks the registry; each part that owns an
// action registers it (App: stop, new chat, settings, help; the composer:
// Up to edit the last message; the search palette: Ctrl+K), and the help
// popover lists what is registered, so the list cannot drift from the keys.
//
// A later registration of the same id replaces the earlier one until it is
// unregistered: the unregister function restores what was there. One marked
// `fallback` gives way to any other of its id whatever the order (the
// composer's Up, "put the last message back in the box", gives way to a
// real edit of that message).
import type { Item } from './conversation';

/** Where the shortcuts are, for parts that register into it. */
export const SHORTCUTS_CONTEXT = Symbol('shortcuts');

export interface Shortcut {
  /** Stable name, e.g. "stop"; registering it again replaces it. */
  id: string;
  /**
   * The key, as KeyboardEvent.key names it, with modifiers in front:
   * "Escape", "Mod+n" (Ctrl, or Cmd on a Mac), "Mod+,", "ArrowUp", "?".
   * Letters are matched without regard to case.
   */
  keys: string;
  /** What the help popover says it does ("Stop the reply"). */
  label: string;
  /** Fires while typing in a text field too (the modifier shortcuts, Esc). Default false. */
  inText?: boolean;
  /** Gives way to any registration of the same id that is not a fallback. */
  fallback?: boolean;
  /** Whether it applies now; when false the key goes on as if unregistered. */
  when?: (e: KeyboardEvent) => boolean;
  run: (e: KeyboardEvent) => void;
}

interface Combo {
  mod: boolean;
  alt: boolean;
  shift: boolean | null; // null: either (a "?" needs Shift on most layouts)
  key: string;
}

/** Parses "Mod+Shift+k" into what an event must carry. */
export function parseKeys(keys: string): Combo {
  const parts = keys.split('+');
  // "Mod++" names the "+" key: the last part is empty.
  let key = parts.pop() ?? '';
  if (key === '' && parts.length > 0) {
    parts.pop();
    key = '+';
  }
  const mods = new Set(parts.map((p) => p.toLowerCase()));
  const printable = key.length === 1;
  return {
    mod: mods.has('mod'),
    alt: mods.has('alt'),
    // A printable key's shift is in the character itself ("?" vs "/").
    shift: mods.has('shift') ? true : printable ? null : false,
    key: key.toLowerCase(),
  };
}

/** True when `e` is the key combination `keys`. */
export function matches(keys: string, e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): boolean {
  const c = parseKeys(keys);
  const mod = e.ctrlKey || e.metaKey;
  if (mod !== c.mod || e.altKey !== c.alt) return false;
  if (c.shift !== null && e.shiftKey !== c.shift) return false;
  return e.key.toLowerCase() === c.key;
}

/** How a key combination is written for a person: "Ctrl+N", "Esc", "↑". */
export function keysLabel(keys: string, mac = false): string {
  const c = parseKeys(keys);
  const names: Record<string, string> = { escape: 'Esc', arrowup: '↑', arrowdown: '↓', enter: 'Enter', ' ': 'Space' };
  const key = names[c.key] ?? (c.key.length === 1 ? c.key.toUpperCase() : c.key);
  const parts = [c.mod ? (mac ? '⌘' : 'Ctrl') : '', c.alt ? 'Alt' : '', c.shift ? 'Shift' : '', key].filter(Boolean);
  return parts.join('+');
}

/** An element a person types into: plain keys belong to it there. */
export function isTextField(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (!(el instanceof HTMLInputElement)) return false;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(el.type);
}

/**
 * The user is in a text field other than `own`: a focus the app asks for by
 * itself (a chat opened at start) must not take their typing away.
 */
export function typingElsewhere(own: Element): boolean {
  const at = own.ownerDocument.activeElement;
  return at !== own && isTextField(at);
}

export class ShortcutRegistry {
  // Per id, the registrations in order; the last one is in force.
  private readonly byId = new Map<string, Shortcut[]>();
  private readonly listeners = new Set<() => void>();

  /** Adds (or, for an id already there, overrides) a shortcut; returns its removal. */
  register(s: Shortcut): () => void {
    const stack = this.byId.get(s.id) ?? [];
    stack.push(s);
    this.byId.set(s.id, stack);
    this.changed();
    return () => {
      const now = this.byId.get(s.id) ?? [];
      const i = now.lastIndexOf(s);
      if (i < 0) return;
      now.splice(i, 1);
      if (now.length === 0) this.byId.delete(s.id);
      this.changed();
    };
  }

  /** The shortcuts in force, in the order their ids were first registered. */
  list(): Shortcut[] {
    return Array.from(this.byId.values(), (stack) => {
      for (let i = stack.length - 1; i >= 0; i--) if (!stack[i].fallback) return stack[i];
      return stack[stack.length - 1];
    });
  }

  /** Hears every change of the list (the help popover); returns the unsubscribe. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Runs the shortcut `e` is, if one applies: not one a focused part has
   * already handled (defaultPrevented), not a plain key while typing in a
   * text field unless it says inText. True when one ran (the key is then
   * prevented from doing anything else).
   */
  handle(e: KeyboardEvent): boolean {
    if (e.defaultPrevented || e.isComposing) return false;
    const typing = isTextField(e.target);
    for (const s of this.list()) {
      if (!matches(s.keys, e)) continue;
      if (typing && !s.inText) continue;
      if (s.when && !s.when(e)) continue;
      e.preventDefault();
      s.run(e);
      return true;
    }
    return false;
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** The text of the last message the user wrote in `items`, or '' (what Up in an empty composer edits). */
export function lastUserText(items: readonly Item[]): string {
  for (let i = items.length - 1; i >= 0; i--) if (items[i].kind === 'user') return items[i].text;
  return '';
}
