package watch

import "errors"

// ErrNotFolder: the path to watch is not a folder.
var ErrNotFolder = errors.New("not a folder")
