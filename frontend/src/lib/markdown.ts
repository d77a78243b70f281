// Markdown for assistant replies and doctor remedies: `marked` parses,
// highlight.js colours code blocks, DOMPurify sanitises — in that order, so
// whatever the highlighter writes passes the same allow-list as the rest.
// Nothing here is hand-rolled.
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: true, async: false });

// Only the core and ten common languages (each registers its aliases: js,
// ts, py, sh, html, yml, golang...), so the bundle stays small: with them
// the page's script grows by under 70 kB (22 kB gzipped; measured with the
// rest of issue 17 item 4); C, C++, CSS, SQL, Java and Markdown would add
// 35 kB more.
// An instance of its own: nothing here changes highlight.js's shared one.
// A block in another language, or with none, stays plain text: guessing
// the language costs a pass per language on every streamed delta.
const highlighter = hljs.newInstance();
for (const [name, lang] of Object.entries({ bash, diff, go, javascript, json, python, rust, typescript, xml, yaml })) {
  highlighter.registerLanguage(name, lang);
}

/** Longer code blocks are shown plain: highlighting runs again on every delta of a reply. */
export const MAX_HIGHLIGHT_CHARS = 20_000;

/** The language of a fence's info string ("ts title=x" → "ts"), if highlight.js knows it. */
export function codeLanguage(info: string | undefined): string | null {
  const name = (info ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return name && highlighter.getLanguage(name) ? name : null;
}

marked.use({
  renderer: {
    code({ text, lang }) {
      const language = codeLanguage(lang);
      if (!language || text.length > MAX_HIGHLIGHT_CHARS) return false; // marked's own, escaped
      // highlight.js escapes the text itself; its spans carry only class names.
      const html = highlighter.highlight(text, { language, ignoreIllegals: true }).value;
      return `<pre><code class="hljs language-${language}">${html}\n</code></pre>\n`;
    },
  },
});

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
    return withCopyButtons(purifier().sanitize(html, SANITIZE) as string);
  } finally {
    citable = new Set();
  }
}

// The copy button of a code block (Message.svelte's click handler copies
// the block's text). An icon only, so the text a person reads — the probe's
// textContent — is the reply's own.
const COPY_ICON =
  '<svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">' +
  '<rect x="9" y="9" width="11" height="11" rx="2"/><path d="M5 15V6a2 2 0 0 1 2-2h9"/></svg>';

/**
 * Wraps each <pre> of the sanitised HTML in a block with a copy button.
 * After the sanitiser (which would drop the button), on its DOM rather than
 * its text: a "<pre" inside an attribute is text too, and a string replace
 * there would turn the rest of that attribute into markup. The button is
 * built from constants; nothing of the reply goes into it.
 */
function withCopyButtons(html: string): string {
  if (!html.includes('<pre')) return html;
  // A template's content is inert: nothing in it loads or runs.
  const box = document.createElement('template');
  box.innerHTML = html;
  for (const pre of Array.from(box.content.querySelectorAll('pre'))) {
    const block = document.createElement('div');
    block.className = 'code-block';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy-code';
    button.setAttribute('data-copy-code', '');
    button.setAttribute('aria-label', 'Copy code');
    button.title = 'Copy code';
    button.innerHTML = COPY_ICON;
    pre.replaceWith(block);
    block.append(button, pre);
  }
  return box.innerHTML;
}

/** Inline Markdown (no paragraphs) to safe HTML, e.g. "start it with `ollama serve`". */
export function renderInline(src: string): string {
  const html = marked.parseInline(src ?? '') as string;
  return purifier().sanitize(html, SANITIZE) as string;
}
