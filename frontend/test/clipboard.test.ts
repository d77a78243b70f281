// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { copyText, MAX_COPY_CHARS, type ClipboardWays } from '../src/lib/clipboard';

// Each way records what it was given, and can refuse.
function ways(opts: { runtime?: 'ok' | 'false' | 'throws'; clipboard?: 'ok' | 'throws'; exec?: boolean }) {
  const got: string[] = [];
  const w: ClipboardWays = {};
  if (opts.runtime) {
    w.runtime = {
      ClipboardSetText: async (t: string) => {
        if (opts.runtime === 'throws') throw new Error('no clipboard');
        got.push('runtime:' + t);
        return opts.runtime === 'ok';
      },
    };
  }
  if (opts.clipboard) {
    w.clipboard = {
      writeText: async (t: string) => {
        if (opts.clipboard === 'throws') throw new DOMException('not allowed', 'NotAllowedError');
        got.push('clipboard:' + t);
      },
    };
  }
  if (opts.exec !== undefined) {
    w.document = document;
    document.execCommand = vi.fn(() => {
      got.push('exec:' + (document.activeElement as HTMLTextAreaElement).value);
      return opts.exec as boolean;
    });
  }
  return { w, got };
}

describe('copyText', () => {
  it.each([
    { name: 'the window runtime first', opts: { runtime: 'ok', clipboard: 'ok', exec: true }, ok: true, got: ['runtime:hi'] },
    { name: 'the page clipboard when the runtime says no', opts: { runtime: 'false', clipboard: 'ok' }, ok: true, got: ['runtime:hi', 'clipboard:hi'] },
    { name: 'the page clipboard when the runtime fails', opts: { runtime: 'throws', clipboard: 'ok' }, ok: true, got: ['clipboard:hi'] },
    { name: 'the page clipboard in a browser', opts: { clipboard: 'ok', exec: true }, ok: true, got: ['clipboard:hi'] },
    { name: 'execCommand when the clipboard refuses', opts: { clipboard: 'throws', exec: true }, ok: true, got: ['exec:hi'] },
    { name: 'false when nothing takes it', opts: { clipboard: 'throws', exec: false }, ok: false, got: ['exec:hi'] },
    { name: 'false with no way at all', opts: {}, ok: false, got: [] },
  ] as const)('$name', async ({ opts, ok, got: want }) => {
    const { w, got } = ways(opts);
    expect(await copyText('hi', w)).toBe(ok);
    expect(got).toEqual(want);
  });

  it('leaves no text area behind and gives focus back', async () => {
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
    const { w } = ways({ exec: true });
    await copyText('x', w);
    expect(document.querySelectorAll('textarea')).toHaveLength(0);
    expect(document.activeElement).toBe(input);
  });

  it('cuts what is too long to copy', async () => {
    const { w, got } = ways({ clipboard: 'ok' });
    await copyText('a'.repeat(MAX_COPY_CHARS + 5), w);
    expect(got[0].length).toBe('clipboard:'.length + MAX_COPY_CHARS);
  });
});
