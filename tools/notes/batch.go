package notes

// IsNoteName reports whether a file of this name is a note the tools change
// (Markdown or plain text): the task queue takes one task per such note.
func IsNoteName(name string) bool { return isNoteName(name) }
