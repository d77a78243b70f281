package rag

import (
	"errors"

	"quire/rag/parse"
)

var (
	// ErrNewerSchema: the rag tables were written by a newer Quire.
	ErrNewerSchema = errors.New("the document index was written by a newer version of Quire")
	// ErrClosed: the Index was closed.
	ErrClosed = errors.New("the document index is closed")
	// ErrEmptyQuery: a search needs some text.
	ErrEmptyQuery = errors.New("the search query is empty")
	// ErrNotIndexed: the path is not in the index.
	ErrNotIndexed = errors.New("not in the document index")
	// ErrDimensions: an embedder made vectors of another length than the
	// ones stored under its name (the model was replaced under its tag).
	ErrDimensions = errors.New("the embedding model's vectors changed length")
	// ErrNoIndex: a read-only Index found no rag tables (nothing was
	// ever indexed in this database).
	ErrNoIndex = errors.New("no document has been indexed yet")
	// ErrReadOnly: a read-only Index was asked to change the index.
	ErrReadOnly = errors.New("the document index was opened read-only")
	// ErrRootMissing: a watched folder or file is not there (an unplugged
	// drive, a moved folder); its documents are kept until it is removed.
	ErrRootMissing = errors.New("the watched path is not there")
	// ErrOutsideRoot: a document is a symbolic link (or lies behind one)
	// that leads out of its watched folder; it is neither read nor shown.
	ErrOutsideRoot = errors.New("a symbolic link leads out of the indexed folder")
	// ErrFolderIsLink: the indexed folder, or a folder above it, is now a
	// symbolic link. Folders are recorded resolved (absPath), so a link
	// there was put in the folder's place after it was indexed; os.OpenRoot
	// would follow it out.
	ErrFolderIsLink = errors.New("the indexed folder has been replaced by a link to somewhere else; put the folder back, or add it again")
)

// The reasons a file is refused, from rag/parse.
var (
	ErrUnsupported = parse.ErrUnsupported
	ErrBinary      = parse.ErrBinary
	ErrMalformed   = parse.ErrMalformed
)
