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

// Nothing a reply renders may fetch anything: a reply can be steered by a
// document the model read, and an image, a background, a poster or a ping
// whose URL carries what it read would send it off the laptop the moment the
// reply is drawn, with no click (the page's Content-Security-Policy in
// index.html is the second wall). So the sanitiser keeps only the tags and
// attributes Markdown's text needs — an allow-list, so a tag or attribute
// no one thought of is dropped, not kept — and an image is shown as the text
// "[image: alt, URL]": the user sees what it pointed at, and nothing loads.
const TAGS = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'kbd', 'samp',
  'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark', 'small', 'sub', 'sup', 'abbr', 'q', 'span', 'div',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  'details', 'summary', 'a',
];
// No style (its url() fetches), src, srcset, poster, background, ping,
// action... — nothing that names a URL but href, which only a click follows.
const ATTRS = ['href', 'title', 'class', 'align', 'start', 'colspan', 'rowspan', 'role', 'tabindex'];
const SANITIZE = { ALLOWED_TAGS: TAGS, ALLOWED_ATTR: ATTRS, ALLOW_ARIA_ATTR: false };

/** What an image in a reply shows instead of loading: its words and where it points. */
export function imageText(alt: string | null, src: string | null): string {
  const words = (alt ?? '').trim();
  const url = (src ?? '').trim();
  if (!url) return words ? `[image: ${words}]` : '[image]';
  return words ? `[image: ${words}, ${url}]` : `[image: ${url}]`;
}

let hooked = false;
function purifier() {
  if (!hooked) {
    // Markdown images (marked writes <img>) and HTML ones alike: the words
    // go in front of the element, which the allow-list then removes.
    DOMPurify.addHook('uponSanitizeElement', (node, data) => {
      if (data.tagName === 'img' && node instanceof Element) {
        node.before(node.ownerDocument.createTextNode(imageText(node.getAttribute('alt'), node.getAttribute('src'))));
      }
    });
    // Links open outside the window (see Conversation.svelte's click
    // handler), never in it, and tell the site nothing of the page.
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
