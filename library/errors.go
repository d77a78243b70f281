package library

import (
	"errors"

	"quire/kernel/protocol"
)

// Every error a host shows comes from here, classified for hosts (HTTP
// status) with protocol.Classify, and says what to do.
var (
	// ErrNoPaths: an add named nothing.
	ErrNoPaths = protocol.Classify(protocol.ErrBadPayload,
		errors.New("nothing to index: drop a file or folder on the window, or type its full path"))
	// ErrRelativePath: paths from a host must be absolute.
	ErrRelativePath = protocol.Classify(protocol.ErrBadPayload,
		errors.New("give the full path, like /home/you/Documents"))
	// ErrMissing: the named path is not on disk.
	ErrMissing = protocol.Classify(protocol.ErrBadPayload,
		errors.New("there is no such file or folder; check the path"))
	// ErrUnknownDocument: the path is not in the document index, so it may
	// not be read, retried or removed.
	ErrUnknownDocument = protocol.Classify(protocol.ErrNotFound,
		errors.New("this file is not in the document index; drop it on the window to add it"))
	// ErrUnreadable: the document failed to index, so there is no text to show.
	ErrUnreadable = protocol.Classify(protocol.ErrConflict,
		errors.New("this document failed to index, so Quire could not read it; see its reason in the documents panel, fix the file and retry"))
	// ErrTooLarge: the viewer shows files up to MaxSourceBytes.
	ErrTooLarge = protocol.Classify(protocol.ErrConflict,
		errors.New("this document is too large to show here; open it in another program"))
	// ErrClosed: the library was closed (the app is quitting).
	ErrClosed = errors.New("the document library is closed")
)
