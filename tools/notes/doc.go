// Package notes owns the note tools: the tools the model uses to list, read,
// find, create, change, move and link the user's Markdown notes inside one
// folder the user chose (the notes root), and to undo those changes.
//
// Confinement. Every path a tool receives goes through one function,
// (*Root).Resolve, before anything touches the disk: it refuses empty,
// absolute and drive paths, `..` that climbs out, NUL and control
// characters, Windows device names and trailing dots or spaces, colons,
// `.git`, overlong names, and symbolic links that lead out of the root. The
// file operations themselves then go through an os.Root opened on the notes
// folder, so a symlink swapped in after the check still cannot lead out.
// A backslash is a path separator on every system (so `a\..\..\x` is the same
// as `a/../../x` and is refused), which keeps a note's name portable.
//
// Writes. A write lands atomically (a temporary file in the same folder,
// fsync, rename) and never replaces a file it was not asked to change:
// create_note and move_note refuse an existing destination. Every write
// returns a Change in its Result.Data with the note's content before and
// after; the runtime keeps results in the event log, so the log holds what
// undo needs, and the undo tool looks a change up through a ChangeLog.
//
// Request ids. create_note and move_note are Keyed: a retry with the same
// requestId returns the first result instead of making a second note or
// moving twice. The ids are remembered in this process only (the runtime
// retries a Keyed call within one process); after a restart a retried create
// fails with a sentence saying the note already exists with that content.
//
// Writes are serialised per Root; reads run alongside each other.
//
// The change log. ChangeIndex (changeindex.go) is the ChangeLog over the
// event log: an index from change id to the tool result that holds it,
// extended only with what the log gained since it last looked.
//
// Moves keep links. move_note rewrites every link to what moves, and the
// relative links inside it, as part of the same change (linker.go plans it
// through a Linker or a scan; relink.go applies it all or nothing under a
// journal, journal.go, which Open rolls back after a crash).
//
// It imports the standard library, quire/kernel/tool, quire/kernel/event
// (the change index reads tool results), quire/vault (the link graph and
// what a move does to it) and gopkg.in/yaml.v3 (front matter). It must never import a database driver, a model client, Wails,
// or any other kernel package.
package notes
