package assembly

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/doctor"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/test/ollamatest"
	"quire/test/testkit/pagedamage"
	"quire/test/testkit/rofs"
)

// databaseCheck is the report's Database line.
func databaseCheck(t *testing.T, r doctor.Report) doctor.Check {
	t.Helper()
	return reportLine(t, r, "Database")
}

// reportLine is the report's check named name.
func reportLine(t *testing.T, r doctor.Report, name string) doctor.Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", name, r)
	return doctor.Check{}
}

// saysReadOnly fails the test unless the check says the database is
// read-only, with the remedy, and gives none of a damaged file's advice.
func saysReadOnly(t *testing.T, c doctor.Check, path string) {
	t.Helper()
	if c.OK || !strings.Contains(c.Detail, "Quire cannot write to "+path+": it is read-only") ||
		!strings.Contains(c.Remedy, "chmod u+w") || !strings.Contains(c.Remedy, "-data-dir") {
		t.Fatalf("database check %+v, want it read-only with the remedy", c)
	}
	if strings.Contains(c.Detail+c.Remedy, "damaged") || strings.Contains(c.Remedy, "move") {
		t.Fatalf("a read-only database is given a damaged file's advice: %+v", c)
	}
}

// withOneSession makes the data folder's database, with one conversation,
// through an owner that then closes.
func withOneSession(t *testing.T, dir string) string {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	p := openOwner(t, dir, fake.URL())
	s, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Kept"})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	return s.ID
}

// TestReadOnlyDataFolderIsSaidToBeReadOnly: on a read-only data folder the
// owner does not open the database and says it is read-only (not damaged);
// doctor says the same; the read-only commands still read it.
func TestReadOnlyDataFolderIsSaidToBeReadOnly(t *testing.T) {
	dir, readOnly := rofs.Folder(t)
	id := withOneSession(t, dir)
	readOnly()
	db := filepath.Join(dir, "quire.db")

	owner := openOwner(t, dir, "http://127.0.0.1:1")
	defer owner.Close()
	if err := owner.DatabaseError(); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("owner on a read-only folder: %v, want store.ErrReadOnly", err)
	}
	if _, err := owner.Kernel().Sessions(t.Context()); err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "-data-dir") {
		t.Fatalf("the owner's kernel answers %v, want the read-only reason and what to do", err)
	}
	saysReadOnly(t, databaseCheck(t, owner.Doctor(t.Context())), db)

	reader := openReader(t, dir)
	if err := reader.DatabaseError(); err != nil {
		t.Fatalf("a reader on a read-only folder: %v", err)
	}
	list, err := reader.Kernel().Sessions(t.Context())
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("a reader's sessions on a read-only folder: %+v, %v", list, err)
	}
	if _, err := reader.Kernel().Events(t.Context(), id, 0); err != nil {
		t.Fatalf("a reader's events on a read-only folder: %v", err)
	}
	saysReadOnly(t, databaseCheck(t, reader.Doctor(t.Context())), db)
}

// TestReadOnlyDatabaseFileIsNotSilent: a read-only database file in a
// writable folder used to pass doctor, turn documents and memory off in
// silence and fail the first write; now the owner refuses it as read-only
// and doctor says so, to an owner and to a reader.
func TestReadOnlyDatabaseFileIsNotSilent(t *testing.T) {
	dir := t.TempDir()
	withOneSession(t, dir)
	db := filepath.Join(dir, "quire.db")
	rofs.File(t, db)

	owner := openOwner(t, dir, "http://127.0.0.1:1")
	defer owner.Close()
	if err := owner.DatabaseError(); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("owner on a read-only file: %v, want store.ErrReadOnly", err)
	}
	saysReadOnly(t, databaseCheck(t, owner.Doctor(t.Context())), db)
	saysReadOnly(t, databaseCheck(t, openReader(t, dir).Doctor(t.Context())), db)
}

// TestDoctorRunsTheFullCheck: damage the quick check at open passes (issue
// 13's flipped pages, in a file closed cleanly) is found by doctor, which
// runs the full check, names the problem and says what to do — with the
// backup the store keeps.
func TestDoctorRunsTheFullCheck(t *testing.T) {
	dir := t.TempDir()
	db := damagedAtRest(t, dir)
	backup := db + ".backup-v0"
	if err := os.WriteFile(backup, []byte("a copy"), 0o600); err != nil {
		t.Fatal(err)
	}

	reader := openReader(t, dir)
	if err := reader.DatabaseError(); err != nil {
		t.Fatalf("the reader's quick check refused the file (the test no longer reproduces the issue): %v", err)
	}
	c := databaseCheck(t, reader.Doctor(t.Context()))
	if c.OK || !strings.Contains(c.Detail, "row not in PRIMARY KEY order") {
		t.Fatalf("doctor's database check %+v, want the full check's finding", c)
	}
	if !strings.Contains(c.Remedy, "will not write to it") || !strings.Contains(c.Remedy, "copy the backup "+backup) {
		t.Fatalf("remedy %q, want it to name the backup", c.Remedy)
	}
}

// TestPartsThatAreOffAreReported: a document index that cannot be opened
// (here: written by a newer Quire) leaves search_docs and the documents
// panel off; doctor says so, with why, instead of the log alone.
func TestPartsThatAreOffAreReported(t *testing.T) {
	dir := t.TempDir()
	withOneSession(t, dir)
	st, err := store.Open(t.Context(), filepath.Join(dir, "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(`UPDATE rag_meta SET value = '99' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	st.Close()

	owner := openOwner(t, dir, "http://127.0.0.1:1")
	defer owner.Close()
	if owner.Documents(t.Context()) != nil {
		t.Fatal("the documents panel is on over an index that did not open")
	}
	var docs, mem *doctor.Check
	r := owner.Doctor(t.Context())
	for i, c := range r.Checks {
		switch c.Name {
		case "Documents":
			docs = &r.Checks[i]
		case "Memory":
			mem = &r.Checks[i]
		}
	}
	if docs == nil || docs.OK || !strings.Contains(docs.Detail, "off: the document index") || !strings.Contains(docs.Detail, "99") || docs.Remedy == "" {
		t.Fatalf("documents check %+v", docs)
	}
	if mem == nil || !mem.OK {
		t.Fatalf("memory check %+v, want on", mem)
	}
}

// damagedAtRest makes dir's database, closed cleanly, then damaged as a
// failing disk damages it (issue 13's flipped pages): the quick check
// passes, the full check finds "row not in PRIMARY KEY order". It returns
// the file's path.
func damagedAtRest(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "quire.db")
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for k := range 4 {
		id := fmt.Sprintf("sess-%d", k)
		if _, _, err := st.CreateSession(t.Context(), id, id, at, nil, nil); err != nil {
			t.Fatal(err)
		}
		drafts := make([]event.Draft, 2000)
		for i := range drafts {
			drafts[i] = event.Draft{Type: event.AssistantDelta, Time: at, RunID: "r", Payload: event.AssistantDeltaPayload{Content: fmt.Sprintf("token %d ", i)}}
		}
		if _, err := st.Append(t.Context(), id, drafts...); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if n := pagedamage.FlipKeys(t, db, "sess-", 30); n != 30 {
		t.Fatalf("flipped %d pages, want 30", n)
	}
	return db
}
