// Markdown for assistant replies and doctor remedies: `marked` parses,
// DOMPurify sanitises. Nothing here is hand-rolled.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: true, async: false });

let hooked = false;
function purifier() {
  if (!hooked) {
    // Links open outside the window (see App.svelte's click handler), never in it.
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.getAttribute('href')) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
    hooked = true;
  }
  return DOMPurify;
}

const SANITIZE = { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'] };

/** Block Markdown to safe HTML. */
export function renderMarkdown(src: string): string {
  const html = marked.parse(src ?? '') as string;
  return purifier().sanitize(html, SANITIZE) as string;
}

/** Inline Markdown (no paragraphs) to safe HTML, e.g. "start it with `ollama serve`". */
export function renderInline(src: string): string {
  const html = marked.parseInline(src ?? '') as string;
  return purifier().sanitize(html, SANITIZE) as string;
}
