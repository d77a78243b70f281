package rag

// Small accessors for hosts that show the index to people (the documents
// panel); they read state, never change it.

// Offline reports whether the built-in offline embedder makes the vectors
// (no embedding model was given or found).
func (ix *Index) Offline() bool { return ix.offline != nil }

// DisplayName is path as citations show it: relative to the parent of the
// watched root it was found under.
func DisplayName(root, path string) string { return displayName(root, path) }
