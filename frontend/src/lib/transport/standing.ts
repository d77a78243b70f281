// The standing tasks' part of the Transport (transport.ts extends it):
// organise batches Quire starts on a schedule while it runs. Each only
// proposes; its batch waits in "Organise a folder" for the same one review.
// Written once over the host ports' operations (client.ts, Standing.*). Every method rejects with an Error whose message is a
// sentence for the user.
import type { StandingFiring, StandingSummary, StandingTask } from '../protocol';

export interface StandingTransport {
  /** Every standing task with its schedule, last and next firing, and what its last batch proposed and kept. */
  standingTasks(): Promise<StandingSummary[]>;
  /** Adds a task (its id and creation are given by Quire). */
  addStandingTask(t: StandingTask): Promise<StandingSummary>;
  /** Replaces a task's name, folder, instruction, schedule and budget, at once. */
  editStandingTask(t: StandingTask): Promise<StandingSummary>;
  /** Pauses (true) or resumes (false) a task, at once. */
  pauseStandingTask(id: string, paused: boolean): Promise<StandingSummary>;
  removeStandingTask(id: string): Promise<void>;
  /** Fires a task now; its batch waits for the review. */
  runStandingTask(id: string): Promise<StandingFiring>;
}

/** A list from a host, with the array the panel relies on (Go writes an empty one as null). */
export function standingList(l: StandingSummary[] | null | undefined): StandingSummary[] {
  return l ?? [];
}
