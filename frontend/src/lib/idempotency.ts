// Idempotency keys: one per user message, sent with every attempt to deliver
// it (Wails `Send(id, text, key)`, HTTP `Idempotency-Key`), so a retry after a
// lost answer is recognised by Quire and never posts the message twice.

/** The part of Web Crypto a key needs (injectable for tests). */
export interface KeyCrypto {
  randomUUID?: () => string;
  getRandomValues?: (array: Uint8Array) => Uint8Array;
}

/**
 * A fresh random key: crypto.randomUUID where there is one, else 16 random
 * bytes as 32 hex digits. randomUUID exists only in secure contexts, and the
 * Wails webview's wails:// origin may not be one; getRandomValues is
 * everywhere.
 */
export function newIdempotencyKey(c: KeyCrypto | undefined = globalThis.crypto): string {
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  if (typeof c?.getRandomValues === 'function') {
    const bytes = c.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }
  throw new Error('This browser has no secure random numbers (crypto.getRandomValues), so Quire cannot send safely.');
}
