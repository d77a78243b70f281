// Package runtime drives sessions: it appends what happens to the log,
// projects the history, streams the model's reply and tells hosts about every
// new event. It owns run lifecycle (start, cancel with a reason, the one
// terminal event per run) and delivery of events to hosts.
//
// Delivery contract: subscribers are called synchronously by the goroutine
// that appended the events, after the append committed, with the events of
// one append in seq order. Events of one session are therefore delivered in
// seq order, without gaps, once. Subscribers must not block and must not
// call back into the Runtime from inside the callback.
//
// It must never import Wails, a database driver, a model client, memory/,
// rag/ or tools/: the log and the model arrive as interfaces.
package runtime
