package assembly

import (
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"quire/config"
	"quire/doctor"
	"quire/internal/datadir"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/crashtest"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/test/testkit/smalldisk"
)

// serveOwner opens the parts over settings as `quire serve` does.
func serveOwner(t *testing.T, settings *config.Store) *Parts {
	t.Helper()
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAFullDiskAtStartIsSaidAndTheConversationsRead: Quire closed cleanly,
// then the disk filled; a start then cannot open the database for writing
// (SQLite has no room for its WAL index). The owner starts anyway: it says
// the disk is full — never that the file is damaged and should be moved,
// the advice it gave before, which would have set the user's conversations
// aside —, lists and reads the conversations, refuses a change with the
// disk-full class, and the next start with room works on the same file
// with nothing lost.
func TestAFullDiskAtStartIsSaidAndTheConversationsRead(t *testing.T) {
	dir := smalldisk.Mount(t, "8m")
	settings := config.NewStore(config.Config{DataDir: dir, OllamaHost: "http://127.0.0.1:1", Model: "qwen3:4b", NumCtx: 4096})
	p := serveOwner(t, settings)
	before, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Before the disk filled"})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	free := smalldisk.Fill(t, filepath.Join(dir, "ballast"))

	p = serveOwner(t, settings)
	dbErr := p.DatabaseError()
	if !errors.Is(dbErr, event.ErrNoSpace) || !strings.Contains(dbErr.Error(), "Free some space") || strings.Contains(dbErr.Error(), "damaged") || strings.Contains(dbErr.Error(), "move quire.db") {
		t.Fatalf("a start on a full disk says %v; want the disk-full sentence, not a damaged file's", dbErr)
	}
	db := databaseCheck(t, p.Doctor(t.Context()))
	if db.OK || !strings.Contains(db.Detail, "is full") || db.Remedy != doctor.FreeSpace {
		t.Fatalf("doctor's database line on a full disk: %+v", db)
	}
	list, err := p.Kernel().Sessions(t.Context())
	if err != nil || len(list) != 1 || list[0].ID != before.ID {
		t.Fatalf("the conversations on a full disk: %+v, %v", list, err)
	}
	if evs, err := p.Kernel().Events(t.Context(), before.ID, 0); err != nil || len(evs) == 0 {
		t.Fatalf("the conversation's events on a full disk: %d, %v", len(evs), err)
	}
	_, err = protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "x"})
	if !errors.Is(err, protocol.ErrNoSpace) {
		t.Fatalf("a change on a full disk: %v, want protocol.ErrNoSpace", err)
	}
	p.Close()

	free()
	p = serveOwner(t, settings)
	defer p.Close()
	if err := p.DatabaseError(); err != nil {
		t.Fatalf("with room again: %v", err)
	}
	if _, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "After"}); err != nil {
		t.Fatal(err)
	}
	if list, err := p.Kernel().Sessions(t.Context()); err != nil || len(list) != 2 {
		t.Fatalf("with room again, the conversations are %+v, %v", list, err)
	}
}

// TestAFullDiskAfterACrashIsSaidAndRecoveredOnceThereIsRoom: the owner was
// killed mid-reply and the disk is full when Quire starts again. The
// database opens (the crash left its WAL index), but memory cannot, and the
// recovery cannot log the run's end: the owner starts, lists the
// conversation, and doctor says the disk is full with the remedy (memory's
// line too, not "update Quire"). Once space is back the run is closed
// without a restart, and the next start has memory again and a log that
// verifies.
func TestAFullDiskAfterACrashIsSaidAndRecoveredOnceThereIsRoom(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	dir := smalldisk.Mount(t, "8m")
	ch := crashtest.New(t, ownerEnv, 1).Start(dir + " " + fake.URL())
	line, ok := ch.Line()
	session, found := strings.CutPrefix(line, "streaming ")
	if !ok || !found {
		t.Fatalf("the owner said %q; stderr: %s", line, ch.Stderr())
	}
	if !ch.Kill() {
		t.Fatal("the owner was not killed")
	}
	free := smalldisk.Fill(t, filepath.Join(dir, "ballast"))

	settings := config.NewStore(config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096})
	p := serveOwner(t, settings)
	if list, err := p.Kernel().Sessions(t.Context()); err != nil || len(list) != 1 || list[0].ID != session {
		t.Fatalf("the conversations on a full disk: %+v, %v", list, err)
	}
	r := p.Doctor(t.Context())
	if disk := reportLine(t, r, "Disk"); disk.OK || !strings.Contains(disk.Detail, "is full") || disk.Remedy != doctor.FreeSpace {
		t.Errorf("doctor's disk line: %+v", disk)
	}
	if mem := reportLine(t, r, "Memory"); mem.OK || mem.Remedy != doctor.FreeSpace {
		t.Errorf("doctor's memory line on a full disk: %+v", mem)
	}

	free()
	testkit.Until(t, p.Kernel(), session, "the interrupted run closed once there was room", func(evs []protocol.Event) bool {
		for _, e := range evs {
			if e.Type == string(event.RunFinished) {
				return true
			}
		}
		return false
	})
	p.Close()
	p = serveOwner(t, settings)
	if p.memErr != nil {
		t.Errorf("memory after a start with room: %v", p.memErr)
	}
	p.Close()
	checkFolder(t, dir)
}
