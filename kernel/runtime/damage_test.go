package runtime_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/test/ollamatest"
)

// TestRecoverGoesOnPastADamagedSession: two conversations are left with
// open runs by a crash, and the first one's log is then damaged (written
// straight into the SQLite file) in one of the ways a reader cannot read:
// a payload that is not JSON, a payload of the wrong shape in a record the
// fold does not need (the replay of a request decodes it), an event of a
// type this version does not know. Recovery marks that one damaged, writes
// nothing into it and closes the other's run; the damaged one is listed
// with its reason before anything read it, and every command to it but
// delete is refused as damaged — the replay of its request too —, while
// the healthy one keeps working.
func TestRecoverGoesOnPastADamagedSession(t *testing.T) {
	for _, tc := range []struct {
		name, damage string // damage: an UPDATE of the bad session's events (its id is ?)
		reason       string // what the listed reason names
	}{
		{"payload not JSON", `UPDATE events SET payload = '{"inputId": "x", "text": ' WHERE session = ? AND type = 'input.received'`, "event 1 (input.received)"},
		{"payload of the wrong shape", `UPDATE events SET payload = '{"text":42}' WHERE session = ? AND type = 'user.message'`, "(user.message)"},
		{"unknown type", `UPDATE events SET type = 'no.such.type', ignorable = 0 WHERE session = ? AND type = 'run.started'`, `"no.such.type"`},
	} {
		t.Run(tc.name, func(t *testing.T) { recoverPastDamage(t, tc.damage, tc.reason) })
	}
}

func recoverPastDamage(t *testing.T, damage, reason string) {
	h := newHarness(t)
	hang := ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 2}}
	h.fake.Script(hang, hang)
	bad, _ := newSession(t, h.rt, "damaged")
	good, _ := newSession(t, h.rt, "healthy")
	// Recovery visits the sessions in id order: the damaged one comes first,
	// so the healthy one is recovered only if recovery goes on past it.
	if good.ID < bad.ID {
		bad, good = good, bad
	}
	for _, s := range []protocol.Session{bad, good} {
		if _, err := submit(t, h.rt, s.ID, "q"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, h, s.ID, event.AssistantDelta)
	}
	crashed := crashCopy(t, h) // both runs open
	st, err := store.Open(t.Context(), crashed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.DB().Exec(damage, bad.ID)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("damaging the log: %d rows, %v", n, err)
	}
	before := rowsOf(t, st, bad.ID)
	st.Close()

	h2 := attach(t, h.fake, crashed)
	if err := h2.rt.Recover(t.Context()); err != nil {
		t.Fatalf("recovery failed for the healthy session too: %v", err)
	}
	evs, _ := h2.store.Events(t.Context(), good.ID, 0)
	if fins := only[event.RunFinishedPayload](t, evs, event.RunFinished); len(fins) != 1 || fins[0].Reason != event.ReasonInterrupted {
		t.Fatalf("the healthy session's run after recovery: %+v", fins)
	}
	if after := rowsOf(t, h2.store, bad.ID); after != before {
		t.Fatalf("recovery wrote %d events into the damaged log", after-before)
	}

	list, err := h2.rt.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		switch s.ID {
		case bad.ID:
			if !strings.Contains(s.Damaged, reason) {
				t.Fatalf("the damaged session is listed with reason %q, want the event it cannot read", s.Damaged)
			}
		case good.ID:
			if s.Damaged != "" {
				t.Fatalf("the healthy session is listed as damaged: %q", s.Damaged)
			}
		}
	}

	refused := map[string]error{
		"send":   func() error { _, err := submit(t, h2.rt, bad.ID, "hello?"); return err }(),
		"cancel": runCmd(t, h2.rt, protocol.CancelRun, protocol.SessionRef{Session: bad.ID}),
		"rename": runCmd(t, h2.rt, protocol.RenameSession, protocol.RenameSessionPayload{Session: bad.ID, Title: "x"}),
		"events": func() error { _, err := h2.rt.Events(t.Context(), bad.ID, 0); return err }(),
		"replay": func() error { _, err := h2.rt.Request(t.Context(), bad.ID, 1); return err }(),
		"follow": func() error {
			ch, errp := h2.rt.Follow(t.Context(), bad.ID, 0)
			for range ch {
			}
			return errp()
		}(),
	}
	for what, err := range refused {
		if !errors.Is(err, protocol.ErrDamaged) {
			t.Errorf("%s on the damaged session: %v, want protocol.ErrDamaged", what, err)
		}
	}
	if after := rowsOf(t, h2.store, bad.ID); after != before {
		t.Fatalf("a refused command wrote %d events into the damaged log", after-before)
	}

	// The healthy session works.
	if _, err := submit(t, h2.rt, good.ID, "again"); err != nil {
		t.Fatal(err)
	}
	h2.waitFinished(t, good.ID, 2)

	// Deleting is what the user can do with the damaged one (and then every
	// log left passes the kit's checks when the test ends).
	if err := runCmd(t, h2.rt, protocol.DeleteSession, protocol.SessionRef{Session: bad.ID}); err != nil {
		t.Fatalf("delete the damaged session: %v", err)
	}
}

// crashCopy is what a crash leaves of the harness's database: a copy of
// what was committed, with every run open as it is now.
func crashCopy(t *testing.T, h *harness) string {
	t.Helper()
	crashed := filepath.Join(t.TempDir(), "crashed.db")
	if _, err := h.store.DB().Exec("VACUUM INTO ?", crashed); err != nil {
		t.Fatal(err)
	}
	return crashed
}

// rowsOf counts a session's rows in the events table, whatever they hold
// (a read through the log refuses a damaged one).
func rowsOf(t *testing.T, st *store.Store, session string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM events WHERE session = ?`, session).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
