// A memory item as the hosts list it, typed by the generated contract: the
// memory store's and the memory panel's tests share it, so a field Go adds
// or renames is changed here once.
import type { MemoryItem } from '../src/lib/protocol';
import { TIME } from './events';

/** A kept fact from session s1's tool call; `over` sets what a test is about. */
export function memoryItem(id: string, over: Partial<MemoryItem> = {}): MemoryItem {
  return {
    id,
    kind: 'fact',
    text: `text ${id}`,
    status: 'kept',
    origin: 'tool',
    session: 's1',
    seq: 3,
    events: [4],
    sources: [3],
    createdAt: TIME,
    updatedAt: TIME,
    ...over,
  };
}
