// Markdown for assistant replies and doctor remedies: `marked` parses,
// DOMPurify sanitises. Nothing here is hand-rolled.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: true, async: false });

// Citations: "[n]" for a passage the text may cite becomes a link the
// page opens in the source viewer (a data-cite attribute, no href, so it
// never navigates). The set of citable numbers is the one of the render
// that is running; marked parses synchronously, so one variable is enough.
let citable: ReadonlySet<number> = new Set();
marked.use({
  extensions: [
    {
      name: 'citation',
      level: 'inline',
      start: (src: string) => src.match(/\[\d{1,3}\]/)?.index,
      tokenizer(src: string) {
        // Not a Markdown link or reference: "[1](x)", "[1]: x".
        const m = /^\[(\d{1,3})\](?![(:])/.exec(src);
        if (m && citable.has(Number(m[1]))) return { type: 'citation', raw: m[0], n: Number(m[1]) };
        return undefined;
      },
      renderer(token) {
        const n = Number(token.n);
        return `<a class="cite" data-cite="${n}" role="button" tabindex="0" data-testid="citation-link">[${n}]</a>`;
      },
    },
  ],
});

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

/**
 * Block Markdown to safe HTML. `cites` are the passage numbers the text may
 * cite: each "[n]" among them becomes a citation link (data-cite="n").
 */
export function renderMarkdown(src: string, cites: ReadonlySet<number> = new Set()): string {
  citable = cites;
  try {
    const html = marked.parse(src ?? '') as string;
    return purifier().sanitize(html, SANITIZE) as string;
  } finally {
    citable = new Set();
  }
}

/** Inline Markdown (no paragraphs) to safe HTML, e.g. "start it with `ollama serve`". */
export function renderInline(src: string): string {
  const html = marked.parseInline(src ?? '') as string;
  return purifier().sanitize(html, SANITIZE) as string;
}
