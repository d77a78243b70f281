// Package queue is the durable task queue through which agents cooperate
// (seed 002 decision 14): agents never talk to each other; a coordinator
// puts one task per note of a folder in the queue, N workers each claim a
// task, run it in a kernel session of their own whose only tools read and
// propose, and put the structured result in the task. Each worker owns its
// input (the task it claimed) and its output (its result); state is
// isolated by session. When every task of a batch has ended the batch
// waits for the user's one answer, and the approved moves run as one
// change, undone as one.
//
// The queue lives in the shared database (queue_* tables, versioned by
// internal/sqlschema as queue_meta): a claim is one UPDATE … RETURNING, so
// two workers never hold the same task; a claim is a lease that expires, so
// the task of a worker that stopped returns to the queue; attempts are
// bounded; a task is done exactly once (its completion names the claim it
// ends). A process that owns the data folder owns every claim in it, so at
// start the claims a killed process left are returned to the queue at once.
//
// Delivery (Watch): each watcher gets every change of a batch in order, and
// the terminal ones always; a slow watcher gets the latest state of each
// batch rather than every step between. A change is told after its commit
// by the process that made it, so a start (Attach) tells every open batch
// as it stands: what a killed process committed but never told is not lost.
//
// It reaches the kernel only through kernel/protocol (a protocol.Kernel the
// composition root builds for the workers), the notes only through
// tools/notes' tools (their sandbox and write lock). It must never import the
// SQL driver, kernel/store, kernel/runtime, kernel/core, a provider, Wails or
// a host.
package queue
