package vault

import "errors"

var (
	// ErrExists: a move would land on a path that is already taken.
	ErrExists = errors.New("the destination already exists")
	// ErrNotFound: nothing in the vault has the path a move names.
	ErrNotFound = errors.New("nothing in the vault has that path")
	// ErrBadPath: a path is empty, absolute, or leaves the vault.
	ErrBadPath = errors.New("not a path inside the vault")
	// ErrIntoItself: a folder cannot move into itself.
	ErrIntoItself = errors.New("a folder cannot move into itself")
	// ErrGraphConfig: moving logseq/config.edn would unmake the Logseq graph
	// every page name resolves in.
	ErrGraphConfig = errors.New("the Logseq graph's configuration cannot move")
	// ErrUnlinkable: a link that resolves could not be written to resolve
	// after the move (a wikilink cannot hold # | [ ] in its target).
	ErrUnlinkable = errors.New("a link could not keep leading to its note")
	// ErrRead: the text of a note the move must change could not be read.
	ErrRead = errors.New("a note could not be read")
)
