// Copying text, wherever the page runs. In the Wails window (WebKitGTK on
// wails://) navigator.clipboard may be missing or refuse without a user
// gesture WebKit recognises, so the window's own runtime call comes first
// (Wails' ClipboardSetText, which sets the GTK clipboard from Go's side);
// in a browser on http://127.0.0.1 navigator.clipboard works; where neither
// does, the old execCommand('copy') on a hidden text area.

/** The part of the Wails runtime used here (window.runtime in the window). */
interface ClipboardRuntime {
  ClipboardSetText?(text: string): Promise<boolean>;
}

/** Where copyText can put text; tests hand in their own. */
export interface ClipboardWays {
  runtime?: ClipboardRuntime;
  clipboard?: Pick<Clipboard, 'writeText'>;
  /** execCommand('copy') on a hidden text area of this document. */
  document?: Document;
}

/** Copied text longer than this is cut: a clipboard is not a file transfer. */
export const MAX_COPY_CHARS = 1_000_000;

function pageWays(): ClipboardWays {
  if (typeof window === 'undefined') return {};
  return {
    runtime: (window as unknown as { runtime?: ClipboardRuntime }).runtime,
    clipboard: navigator.clipboard,
    document,
  };
}

function execCopy(doc: Document, text: string): boolean {
  const area = doc.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  const focused = doc.activeElement as HTMLElement | null;
  doc.body.append(area);
  area.focus();
  area.select();
  try {
    return doc.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
    focused?.focus?.();
  }
}

/** Puts `text` on the clipboard; true when one of the ways took it. */
export async function copyText(text: string, ways: ClipboardWays = pageWays()): Promise<boolean> {
  const t = text.length > MAX_COPY_CHARS ? text.slice(0, MAX_COPY_CHARS) : text;
  if (ways.runtime?.ClipboardSetText) {
    try {
      if (await ways.runtime.ClipboardSetText(t)) return true;
    } catch {
      // fall through to the page's own ways
    }
  }
  if (ways.clipboard) {
    try {
      await ways.clipboard.writeText(t);
      return true;
    } catch {
      // not allowed here (an insecure origin, no focus): the old way
    }
  }
  return ways.document ? execCopy(ways.document, t) : false;
}
