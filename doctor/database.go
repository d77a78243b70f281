package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DatabaseProblem is what is wrong with Quire's database file, as the
// composition root found it when it opened (and, for doctor, fully checked)
// the file.
type DatabaseProblem int

const (
	// DatabaseFine: the file opened and passed its check.
	DatabaseFine DatabaseProblem = iota
	// DatabaseNotCreated: there is no file yet (a reader never makes one);
	// Quire creates it when it first starts.
	DatabaseNotCreated
	// DatabaseDamaged: the file is not a database, or SQLite's check failed.
	DatabaseDamaged
	// DatabaseNeedsUpgrade: an older Quire wrote it, and a command that
	// only reads may not upgrade it.
	DatabaseNeedsUpgrade
	// DatabaseReadOnly: the file or its folder cannot be written.
	DatabaseReadOnly
	// DatabaseRefused: any other reason (a newer Quire wrote it, it cannot
	// be read).
	DatabaseRefused
	// DatabaseNoSpace: the disk that holds it is too full to open it for
	// writing; an owner reads it, and changes nothing, until there is room.
	DatabaseNoSpace
)

// FreeSpace is the remedy for a full disk: nothing is damaged and nothing
// is to be moved; what was saved is kept, and a start with room recovers
// what this one could not save.
const FreeSpace = "Free some space on the disk that holds Quire's data folder, then quit Quire and start it again. What was saved is kept; nothing needs to be moved."

// DatabaseState is what the composition root knows of the database file.
type DatabaseState struct {
	Path    string
	Problem DatabaseProblem
	// Err says why the file could not be opened, or failed its check.
	Err error
	// Backups are the copies Quire made before migrating it, which a user
	// can restore (kernel/store: path + ".backup-v<N>").
	Backups []string
}

// Database is the check of the database file: what is wrong and what to do
// about it. Quire never writes a file it refused, and the remedy says so. A
// file that opened is also asked whether it could be written (access(2),
// which creates nothing): a read-only file opens for reading, and an owner
// could not work with it.
func Database(s DatabaseState) Check {
	c := Check{Name: "Database", OK: true, Detail: s.Path}
	switch s.Problem {
	case DatabaseFine:
		if err := writableFile(s.Path); err != nil {
			return readOnly(c, s.Path, err)
		}
	case DatabaseNotCreated:
		c.Detail = s.Path + " (not created yet; Quire makes it when it first starts)"
	case DatabaseDamaged:
		c.OK = false
		c.Detail = errText(s.Err)
		c.Remedy = damagedRemedy(s)
	case DatabaseNeedsUpgrade:
		c.OK = false
		c.Detail = errText(s.Err)
		c.Remedy = "Start Quire (the window, or `quire serve`) once: it upgrades the file and keeps a backup beside it."
	case DatabaseReadOnly:
		return readOnly(c, s.Path, s.Err)
	case DatabaseNoSpace:
		c.OK = false
		c.Detail = fmt.Sprintf("the disk that holds %s is full: Quire opened it to read only, so your conversations can be read but nothing new is saved (%s)", s.Path, errText(s.Err))
		c.Remedy = FreeSpace
	case DatabaseRefused:
		c.OK = false
		c.Detail = errText(s.Err)
		c.Remedy = "Quire left the file untouched. Move it aside to start afresh, or update Quire if it was written by a newer version."
	}
	return c
}

// damagedRemedy says how to get going again without losing the damaged
// file: set it aside (with its WAL and index), restore the newest backup if
// there is one, or let Quire start a new file.
func damagedRemedy(s DatabaseState) string {
	base := filepath.Base(s.Path)
	aside := fmt.Sprintf("Quire will not write to it. Quit Quire and move %s (with %s-wal and %s-shm, if there) to another folder, so nothing is lost", base, base, base)
	if len(s.Backups) == 0 {
		return aside + "; Quire then starts a new one. No backup sits beside it (Quire makes one before each upgrade)."
	}
	newest := s.Backups[len(s.Backups)-1]
	return fmt.Sprintf("%s; then copy the backup %s to %s to go back to it (it holds what was there before the last upgrade), or start Quire to begin a new one. Backups: %s.",
		aside, newest, s.Path, strings.Join(s.Backups, ", "))
}

// readOnly is the check of a database Quire cannot write, with the remedy:
// the file is not damaged, and nothing should be moved.
func readOnly(c Check, path string, err error) Check {
	c.OK = false
	c.Detail = fmt.Sprintf("Quire cannot write to %s: it is read-only (%s)", path, errText(err))
	c.Remedy = fmt.Sprintf("Make it writable (chmod u+w %s %s, or remount its disk read-write), or pick another data folder with -data-dir. Reading commands (sessions, replay, search) still work.",
		path, filepath.Dir(path))
	return c
}

// writableFile reports whether this process may write the file at path;
// a file that is not there is not doctor's to judge here (the data folder's
// check is).
func writableFile(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return writableExisting(path)
}

func errText(err error) string {
	if err == nil {
		return "the database could not be opened"
	}
	return err.Error()
}

// Add appends a check to the report; a failed check fails the report.
func (r *Report) Add(c Check) {
	r.Checks = append(r.Checks, c)
	r.OK = r.OK && c.OK
}

// Part is the check of a part of Quire that could not be opened and is off
// (the document index, memory): the rest works, and the report says so
// rather than the part turning itself off in silence. A nil err passes.
func Part(name, off string, err error) Check {
	c := Check{Name: name, OK: err == nil, Detail: off + " is open"}
	if err != nil {
		c.Detail = fmt.Sprintf("off: %s could not be opened: %v", off, err)
		c.Remedy = "The rest of Quire works without it. Restart Quire; if this stays, run `quire doctor` and check the Database line, or update Quire if a newer version wrote this data folder."
	}
	return c
}

// Owner is the line a reader (`quire doctor`) gives of who owns the data
// folder: holder names it ("the Quire window (process 123, since 10:42 on
// 1 Dec 2026)") when running, or none runs. It passes either way — an owner
// running is how Quire is used, and a reader works beside it; a lock file
// that cannot be read leaves the owner unknown, said as such.
func Owner(holder string, running bool, err error) Check {
	c := Check{Name: "Owner", OK: true, Detail: "not running: no Quire window or `quire serve` holds this data folder"}
	switch {
	case err != nil:
		c.Detail = fmt.Sprintf("unknown: the data folder's lock file could not be read: %v", err)
	case running:
		c.Detail = holder
	}
	return c
}

// DiskFull is the line for a full disk found by a part of an owner that
// opened (memory, the document index, the recovery of an interrupted run):
// why it says so, and FreeSpace.
func DiskFull(dir string, err error) Check {
	return Check{Name: "Disk", Detail: fmt.Sprintf("the disk that holds %s is full: Quire cannot save anything new (%s)", dir, errText(err)), Remedy: FreeSpace}
}
