// Package library is the documents panel's back end, shared by every host:
// it indexes the files and folders the user drops (or names) in the
// background, one pass at a time, with progress a host forwards to the
// page; it refreshes the known folders at start; it lists the documents
// with their status, retries and removes them; and it reads an indexed
// document's text for the viewer a citation opens — only a document that
// is in the index, never an arbitrary path.
//
// It speaks kernel/protocol's document types to hosts and uses rag (and
// rag/parse, to read a PDF page) underneath. It must never import Wails,
// a host (host/*), the kernel runtime, a SQL driver or a model client.
//
// Ordering and delivery: passes run in the order they were asked for, one
// at a time; a pass asked for while several wait is merged into the last
// waiting one. Watch delivers progress lossily — a slow reader gets the
// latest state, never a stale queue — and always the final state of a pass.
package library
