// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderInline, renderMarkdown } from '../src/lib/markdown';

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
    { md: '```go\nfmt.Println(1)\n```', has: ['<pre><code class="language-go">'] },
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

describe('renderInline', () => {
  it('renders code spans without a paragraph', () => {
    expect(renderInline('start it with `ollama serve`')).toBe('start it with <code>ollama serve</code>');
  });
  it('sanitises', () => {
    expect(renderInline('<img src=x onerror=alert(1)>')).not.toMatch(/onerror/);
  });
});
