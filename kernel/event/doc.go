// Package event owns the session log's vocabulary: the envelope every event
// carries, the registry of event types with their payload types, and the
// codec that turns a payload into the exact bytes stored.
//
// The log is the single source of truth (seed 000 §2): what the model sees
// must be rebuildable from it. This package therefore refuses, at encode time,
// anything that could not be replayed: unregistered types, payloads of the
// wrong Go type, and values JSON cannot represent. On read it refuses unknown
// types unless they were written as ignorable.
//
// It imports only the standard library. It must never import a database
// driver, a model client, Wails, or anything outside kernel/.
package event
