package library

import (
	"errors"

	"quire/kernel/protocol"
)

// Every error a host shows comes from here, classified for hosts (HTTP
// status) with protocol.Classify, and says what to do.
var (
	// ErrNoPaths: an add named nothing.
	ErrNoPaths = badPayload("nothing to index: drop a file or folder on the window, or type its full path")
	// ErrRelativePath: paths from a host must be absolute.
	ErrRelativePath = badPayload("give the full path, like /home/you/Documents")
	// ErrUncleanPath: a path with "..", ".", a doubled or a trailing
	// separator; only the path as the documents panel shows it is acted on.
	ErrUncleanPath = badPayload("give the path exactly as the documents panel shows it, without \"..\", \".\" or extra slashes")
	// ErrMissing: the named path is not on disk.
	ErrMissing = badPayload("there is no such file or folder; check the path")
	// ErrUnknownDocument: the path is not in the document index, so it may
	// not be read, retried or removed.
	ErrUnknownDocument = notFound("this file is not in the document index; drop it on the window to add it")
	// ErrUnreadable: the document failed to index, so there is no text to show.
	ErrUnreadable = conflict("this document failed to index, so Quire could not read it; see its reason in the documents panel, fix the file and retry")
	// ErrNotRead: the file is in a format Quire does not read (skipped), so
	// it has no indexed text to show.
	ErrNotRead = conflict("this file is in a format Quire does not read, so there is no text of it to show")
	// ErrOutsideRoot: the document is now a symbolic link that leads out
	// of its indexed folder, which the viewer does not follow.
	ErrOutsideRoot = conflict("this document has been replaced by a link to a file outside its indexed folder, so Quire will not show it; put the file itself back, or remove the document from Quire")
	// ErrFolderIsLink: the indexed folder, or a folder above it, is now a
	// symbolic link (folders are recorded as themselves, never through a
	// link): the viewer does not follow it out.
	ErrFolderIsLink = conflict("the folder this document was indexed in has been replaced by a link to somewhere else, so Quire will not show it; put the folder itself back, or add the folder again so Quire indexes what it holds now")
	// ErrTooLarge: the viewer shows files up to MaxSourceBytes.
	ErrTooLarge = conflict("this document is too large to show here; open it in another program")
	// ErrClosed: the library was closed (the app is quitting).
	ErrClosed = errors.New("the document library is closed")
)

// One constructor a protocol class, so each sentinel above reads as its
// class and its sentence; hosts map the class to a status.
func badPayload(sentence string) error {
	return protocol.Classify(protocol.ErrBadPayload, errors.New(sentence))
}

func notFound(sentence string) error {
	return protocol.Classify(protocol.ErrNotFound, errors.New(sentence))
}

func conflict(sentence string) error {
	return protocol.Classify(protocol.ErrConflict, errors.New(sentence))
}
