// Package standing owns Quire's standing tasks (issue 33, seed 001 §8): a
// scheduler facet, a run trigger that starts organise batches on a schedule
// (daily, weekly, when a folder holds more than N notes, when a note lands
// in a folder). Its core is pure: Due says, from the tasks, their last
// firings, the vault as seen and an injected now, which tasks fire, and a
// slot missed while Quire was closed fires once (saying how many it
// answers), never once per slot. The Runner fires them through ports.
//
// A standing task only proposes: its one way to act is Proposer, a port
// with no method that applies, and a Task has no field that could ask for
// one (decoding refuses unknown fields), so its batch waits for the same
// one review and one undo as a batch the user started.
//
// Tasks and firings are rows of the shared database (standing_* tables,
// versioned by internal/sqlschema as standing_meta); every step of a firing
// is also a standing.firing event in the log (kernel/event/standing.go).
//
// It must never import the SQL driver, kernel/store, kernel/runtime,
// kernel/core, the task queue, tools, a provider, a host or Wails: the
// composition root gives it its ports.
package standing
