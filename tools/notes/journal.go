package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// journalFolder is where a root keeps its journals when the composition
// root hands it no folder (WithJournal): hidden, so no note tool lists it,
// and removed once empty.
const journalFolder = ".quire-journal"

// journal is what a relinking move writes, synced, before it changes
// anything: enough to put every file back byte for byte, whichever steps
// had been made. One file per change, named after it.
type journal struct {
	Root     string        `json:"root"` // the notes folder it belongs to (a data folder's journals may be another folder's)
	PID      int           `json:"pid"`  // the process applying it: its own journal is never recovered under it
	ID       string        `json:"id"`
	Call     string        `json:"call,omitempty"`
	From     string        `json:"from"`
	To       string        `json:"to"`
	Folder   bool          `json:"folder,omitempty"`
	CaseOnly bool          `json:"caseOnly,omitempty"`
	Made     []string      `json:"made,omitempty"`
	Edits    []journalEdit `json:"edits"`
}

type journalEdit struct {
	At          string `json:"at"`    // where the note is before the rename
	Moved       string `json:"moved"` // and after it
	Before      string `json:"before"`
	AfterSHA256 string `json:"afterSha256"`
	Temp        string `json:"temp"` // its staged new text, beside At
}

func (m *relink) journal(root string, pid int) journal {
	j := journal{Root: root, PID: pid, ID: m.id, Call: m.call, From: m.from, To: m.to, Folder: m.folder, CaseOnly: m.caseOnly, Made: m.made}
	for i, e := range m.edits {
		j.Edits = append(j.Edits, journalEdit{At: e.at, Moved: e.moved, Before: e.before, AfterSHA256: digest(e.after),
			Temp: path.Join(path.Dir(e.at), fmt.Sprintf("%s%s-%d.tmp", tempPrefix, m.id, i))})
	}
	return j
}

func journalName(id string) string { return "move-" + id + ".json" }

// openJournals opens the journal folder, making it if it is missing.
func (r *Root) openJournals() (*os.Root, error) {
	if r.journalDir == "" {
		if err := r.fs.Mkdir(journalFolder, 0o700); err == nil {
			r.syncDir(".")
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("the journal folder %s could not be made: %w", journalFolder, err)
		}
		jr, err := r.fs.OpenRoot(journalFolder)
		if err != nil {
			return nil, fmt.Errorf("the journal folder %s cannot be opened: %w", journalFolder, err)
		}
		return jr, nil
	}
	if _, err := os.Stat(r.journalDir); err != nil {
		if err := os.MkdirAll(r.journalDir, 0o700); err != nil {
			return nil, fmt.Errorf("the journal folder %s could not be made: %w", r.journalDir, err)
		}
		// A journal in a folder whose own name is not yet on the disk
		// could be lost with it.
		if d, err := os.Open(filepath.Dir(r.journalDir)); err == nil {
			d.Sync()
			d.Close()
		}
	}
	jr, err := os.OpenRoot(r.journalDir)
	if err != nil {
		return nil, fmt.Errorf("the journal folder %s cannot be opened: %w", r.journalDir, err)
	}
	return jr, nil
}

// writeJournal writes j durably: a temporary file, synced, renamed, and
// the folder synced, so a journal is either whole or absent.
func writeJournal(jr *os.Root, j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("the journal of %s could not be written: %w", j.ID, err)
	}
	name := journalName(j.ID)
	f, err := jr.OpenFile(name+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("the journal of %s could not be written, so nothing was changed: %w", j.ID, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = jr.Rename(name+".tmp", name)
	}
	if err != nil {
		jr.Remove(name + ".tmp")
		return fmt.Errorf("the journal of %s could not be written, so nothing was changed: %w", j.ID, err)
	}
	syncRoot(jr)
	return nil
}

func removeJournal(jr *os.Root, j journal) {
	jr.Remove(journalName(j.ID))
	syncRoot(jr)
}

func syncRoot(jr *os.Root) {
	if d, err := jr.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
}

// recoverJournals finishes what a crash left: every journal of this notes
// folder (not of this process) is rolled back, then removed. A journal that cannot be read is left where it
// is and said.
func (r *Root) recoverJournals() []Recovery {
	if r.journalDir == "" {
		if _, err := r.fs.Stat(journalFolder); err != nil {
			return nil
		}
	} else if _, err := os.Stat(r.journalDir); err != nil {
		return nil
	}
	jr, err := r.openJournals()
	if err != nil {
		return []Recovery{{Problems: []string{err.Error()}}}
	}
	defer jr.Close()
	entries, err := fs.ReadDir(jr.FS(), ".")
	if err != nil {
		return []Recovery{{Problems: []string{fmt.Sprintf("the journal folder cannot be read: %v", err)}}}
	}
	var out []Recovery
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "move-") {
			continue
		}
		if strings.HasSuffix(name, ".json.tmp") {
			jr.Remove(name) // a journal never finished: nothing was applied under it
			continue
		}
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := fs.ReadFile(jr.FS(), name)
		var j journal
		if err == nil {
			err = json.Unmarshal(data, &j)
		}
		if err != nil {
			out = append(out, Recovery{Change: name, Problems: []string{fmt.Sprintf("the journal %s cannot be read (%v), so it was left where it is", name, err)}})
			continue
		}
		if j.Root != r.dir || j.PID == r.pid {
			continue
		}
		out = append(out, r.rollBack(j))
		removeJournal(jr, j)
	}
	if r.journalDir == "" {
		r.fs.Remove(journalFolder) // only when empty
	}
	return out
}

// Recovered is what Open found of moves a crash interrupted, each rolled
// back (see Recovery.Sentence); the composition root logs it and records
// it in the conversation that made it.
func (r *Root) Recovered() []Recovery { return r.recovered }
