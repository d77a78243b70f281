// Events for the fold's tests, typed by the generated contract
// (src/lib/generated/protocol.ts): a payload field Go renamed or retyped
// fails `npm run check` here, in every test that writes it.
import type { EventPayloads, EventTypeName, QEvent } from '../src/lib/protocol';

export const TIME = '2026-11-30T10:00:00Z';

/**
 * An event as Go writes it. The payload may be partial (the fold reads what
 * is there), but every field it names is one the Go type has, with its type.
 */
export function event<T extends EventTypeName>(
  session: string,
  seq: number,
  type: T,
  payload: Partial<EventPayloads[T]> = {},
  runId?: string,
): QEvent {
  return { session, seq, type, time: TIME, runId, visibility: 'public', payload } as QEvent;
}

/**
 * An event no Go type describes: an unknown type (a newer kernel) or a
 * malformed payload, for the tests that show the fold survives one.
 */
export function rawEvent(session: string, seq: number, type: string, payload: unknown, runId?: string): QEvent {
  return { session, seq, type, time: TIME, runId, visibility: 'public', payload } as unknown as QEvent;
}
