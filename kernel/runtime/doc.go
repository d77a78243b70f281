// Package runtime drives sessions around the pure loop in kernel/core: it
// turns what happens (an input, a streamed reply, a tool's result, the
// user's answer) into fact events, applies core.Update, appends the fact and
// the records Update derived in one transaction, then performs the commands
// (stream a reply, run tools, ask the user, run the pre-close checkpoint).
//
// One owner goroutine per attached session drains that session's inbox in
// arrival order; nothing else changes its Model. Provider streams share a
// bounded pool; each tool runs in its own goroutine with its own deadline,
// so a hung tool cannot starve streaming. Cancellation carries its reason
// (context.WithCancelCause) into the run's one terminal event.
//
// Delivery contract: subscribers are called synchronously by the goroutine
// that appended the events, after the append committed, with the events of
// one append in seq order (event.Feed). They must not block and must not
// call back into the Runtime from inside the callback.
//
// It must never import Wails, a database driver, a model client, memory/,
// rag/ or tools/: the log, the model and the capabilities arrive as
// interfaces (the facets in facets.go).
package runtime
