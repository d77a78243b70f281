package doctor

// DatabaseProblem is what is wrong with Quire's database file, as the
// composition root found it when it opened the file.
type DatabaseProblem int

const (
	// DatabaseFine: the file opened.
	DatabaseFine DatabaseProblem = iota
	// DatabaseNotCreated: there is no file yet (a reader never makes one);
	// Quire creates it when it first starts.
	DatabaseNotCreated
	// DatabaseDamaged: the file is not a database, or SQLite's check failed.
	DatabaseDamaged
	// DatabaseNeedsUpgrade: an older Quire wrote it, and a command that
	// only reads may not upgrade it.
	DatabaseNeedsUpgrade
	// DatabaseRefused: any other reason (a newer Quire wrote it, it cannot
	// be read).
	DatabaseRefused
)

// Database is the check of the database file at path: err says why it
// could not be opened, and the remedy what to do about it. Quire never
// touches a file it refused, and the remedy says so.
func Database(path string, problem DatabaseProblem, err error) Check {
	c := Check{Name: "Database", OK: true, Detail: path}
	switch problem {
	case DatabaseNotCreated:
		c.Detail = path + " (not created yet; Quire makes it when it first starts)"
	case DatabaseDamaged:
		c.OK = false
		c.Detail = errText(err)
		c.Remedy = "The file is damaged; Quire left it untouched. Move it aside (a backup may sit beside it) and Quire will start a new one."
	case DatabaseNeedsUpgrade:
		c.OK = false
		c.Detail = errText(err)
		c.Remedy = "Start Quire (the window, or `quire serve`) once: it upgrades the file and keeps a backup beside it."
	case DatabaseRefused:
		c.OK = false
		c.Detail = errText(err)
		c.Remedy = "Quire left the file untouched. Move it aside to start afresh, or update Quire if it was written by a newer version."
	}
	return c
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
