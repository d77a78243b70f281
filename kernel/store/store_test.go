package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func user(text string) event.Draft {
	return event.Draft{Type: event.UserMessage, Time: t0, Payload: event.UserMessagePayload{Text: text}}
}

func TestAppendAssignsConsecutiveSeqsAndSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "a", "First", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Append(t.Context(), "a", user("one"), user("two"))
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Seq != 1 || evs[1].Seq != 2 {
		t.Fatalf("seqs %d,%d, want 1,2", evs[0].Seq, evs[1].Seq)
	}
	if _, err := s.Append(t.Context(), "a", event.Draft{Type: event.SessionRenamed, Time: t0.Add(time.Second),
		Payload: event.SessionRenamedPayload{Title: "Renamed"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.Events(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Fatalf("%d events after reopen, want 4", len(all))
	}
	for i, e := range all {
		if e.Seq != int64(i) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	p, err := event.As[event.UserMessagePayload](all[2])
	if err != nil || p.Text != "two" {
		t.Fatalf("payload %+v, %v", p, err)
	}
	sess, err := s.Session(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Title != "Renamed" || sess.LastSeq != 3 {
		t.Fatalf("index %+v", sess)
	}
}

func TestAppendRejects(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	type weird struct{ F func() }
	cases := []struct {
		name    string
		session string
		drafts  []event.Draft
		want    error
	}{
		{"unknown type", "a", []event.Draft{{Type: "made.up", Time: t0, Payload: event.UserMessagePayload{}}}, event.ErrUnknownType},
		{"wrong payload type", "a", []event.Draft{{Type: event.UserMessage, Time: t0, Payload: event.RunStartedPayload{}}}, event.ErrWrongPayload},
		{"pointer payload", "a", []event.Draft{{Type: event.UserMessage, Time: t0, Payload: &event.UserMessagePayload{}}}, event.ErrWrongPayload},
		{"no time", "a", []event.Draft{{Type: event.UserMessage, Payload: event.UserMessagePayload{}}}, event.ErrNoTime},
		{"bad draft in a batch", "a", []event.Draft{user("fine"), {Type: event.UserMessage, Time: t0, Payload: weird{}}}, event.ErrWrongPayload},
		{"no such session", "nope", []event.Draft{user("x")}, ErrNoSession},
		{"source seq in the future", "a", []event.Draft{{Type: event.UserMessage, Time: t0, Sources: []int64{1}, Payload: event.UserMessagePayload{}}}, event.ErrBadReference},
		{"source seq is itself", "a", []event.Draft{user("x"), {Type: event.UserMessage, Time: t0, Sources: []int64{2}, Payload: event.UserMessagePayload{}}}, event.ErrBadReference},
		{"negative source", "a", []event.Draft{{Type: event.UserMessage, Time: t0, Sources: []int64{-1}, Payload: event.UserMessagePayload{}}}, event.ErrBadReference},
		{"replace of a range not yet in the log", "a", []event.Draft{{Type: event.HistoryReplace, Time: t0, Payload: event.HistoryReplacePayload{From: 0, To: 5, Summary: "s"}}}, event.ErrBadReference},
		{"backwards replace", "a", []event.Draft{{Type: event.HistoryReplace, Time: t0, Payload: event.HistoryReplacePayload{From: 1, To: 0, Summary: "s"}}}, event.ErrBadReference},
		{"nothing", "a", nil, ErrEmptyAppend},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(t.Context(), tc.session, tc.drafts...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			all, err := s.Events(t.Context(), "a", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 {
				t.Fatalf("a rejected batch left %d events", len(all))
			}
		})
	}
	if _, _, err := s.CreateSession(t.Context(), "a", "again", t0, nil, nil); !errors.Is(err, ErrSessionExists) {
		t.Fatalf("creating a session twice: %v", err)
	}
}

func TestConcurrentAppendsHaveNoGaps(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if _, err := s.Append(t.Context(), "a", user("x"), user("y")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	all, err := s.Events(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 201 {
		t.Fatalf("%d events, want 201", len(all))
	}
	for i, e := range all {
		if e.Seq != int64(i) {
			t.Fatalf("gap or duplicate at %d: seq %d", i, e.Seq)
		}
	}
}

func TestUnknownEventsOnRead(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Rows as a newer Quire would write them.
	insert := func(seq int, typ string, ignorable bool) {
		if _, err := s.db.Exec(`INSERT INTO events (session, seq, type, time_ns, ignorable, visibility, payload) VALUES ('a', ?, ?, 0, ?, 'public', '{}')`,
			seq, typ, ignorable); err != nil {
			t.Fatal(err)
		}
	}
	insert(1, "future.decoration", true)
	all, err := s.Events(t.Context(), "a", 0)
	if err != nil {
		t.Fatalf("an ignorable unknown event failed the read: %v", err)
	}
	if len(all) != 1 {
		t.Fatalf("ignorable unknown event was not skipped: %d events", len(all))
	}
	insert(2, "future.essential", false)
	if _, err := s.ProjectedEvents(t.Context(), "a", 0, -1); !errors.As(err, new(*event.ErrNewerEvent)) {
		t.Fatalf("projection read skipped an unknown essential event: %v", err)
	}
	_, err = s.Events(t.Context(), "a", 0)
	var newer *event.ErrNewerEvent
	if !errors.As(err, &newer) || newer.Seq != 2 || newer.Session != "a" || !strings.Contains(err.Error(), "newer Quire") {
		t.Fatalf("unknown essential event: err = %v", err)
	}
}

func TestDeleteSession(t *testing.T) {
	s := open(t)
	for _, id := range []string{"a", "b"} {
		if _, _, err := s.CreateSession(t.Context(), id, id, t0, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteSession(t.Context(), "a", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteSession(t.Context(), "a", nil); !errors.Is(err, ErrNoSession) {
		t.Fatalf("deleting twice: %v", err)
	}
	list, err := s.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "b" {
		t.Fatalf("sessions after delete: %+v", list)
	}
	evs, err := s.Events(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 0 {
		t.Fatalf("deleted session still has %d events", len(evs))
	}
}

func TestOpenRefusesNewerAndCorruptFilesWithoutTouchingThem(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	db, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE x (y); PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	corrupt := filepath.Join(dir, "corrupt.db")
	garbage := []byte(strings.Repeat("this is not a database ", 400))
	if err := os.WriteFile(corrupt, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want error
	}{{newer, ErrNewerDatabase}, {corrupt, ErrCorrupt}}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			before, _ := os.ReadFile(tc.path)
			_, err := Open(t.Context(), tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			after, _ := os.ReadFile(tc.path)
			if string(before) != string(after) {
				t.Fatal("the refused file was modified")
			}
		})
	}
}

func TestMigrationBacksUpFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// A version-0 database holding the user's data in some table.
	if _, err := db.Exec("CREATE TABLE keep (v TEXT); INSERT INTO keep VALUES ('precious')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	backup, err := sql.Open("sqlite", path+".backup-v0")
	if err != nil {
		t.Fatal(err)
	}
	defer backup.Close()
	var v string
	if err := backup.QueryRow("SELECT v FROM keep").Scan(&v); err != nil || v != "precious" {
		t.Fatalf("backup lacks the data: %q, %v", v, err)
	}
}

func TestDiagnose(t *testing.T) {
	d, err := Diagnose(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !d.FTS5 || !strings.HasPrefix(d.SQLiteVersion, "3.") {
		t.Fatalf("diagnosis %+v", d)
	}
}

func TestReferencesToThePastAreAccepted(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), "a", user("one"), user("two"),
		event.Draft{Type: event.HistoryReplace, Time: t0, Sources: []int64{1, 2}, Payload: event.HistoryReplacePayload{From: 1, To: 2, Summary: "both"}}); err != nil {
		t.Fatal(err)
	}
	sess, _ := s.Session(t.Context(), "a")
	if sess.Replaces != 1 || sess.LastSeq != 3 {
		t.Fatalf("index after a replace: %+v", sess)
	}
}

func TestBranches(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "root", "Root", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), "root", user("one")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		parent event.BranchPoint
		want   error
	}{
		{"valid", event.BranchPoint{Session: "root", Seq: 1}, nil},
		{"seq beyond the parent's log", event.BranchPoint{Session: "root", Seq: 2}, ErrBadBranch},
		{"negative seq", event.BranchPoint{Session: "root", Seq: -1}, ErrBadBranch},
		{"no such parent", event.BranchPoint{Session: "ghost", Seq: 0}, ErrBadBranch},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.parent
			_, _, err := s.CreateSession(t.Context(), fmt.Sprint("b", i), "Branch", t0, &p, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if err != nil {
				return
			}
			got, _ := s.Session(t.Context(), fmt.Sprint("b", i))
			if got.Parent == nil || *got.Parent != p {
				t.Fatalf("parent %+v", got.Parent)
			}
		})
	}
}

func TestIdempotencyKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	once := Once{Key: "k1", Fingerprint: "send:hi", Result: []byte(`{"runId":"r1"}`)}
	if _, done, err := s.AppendOnce(t.Context(), once, "a", user("hi")); err != nil || done != nil {
		t.Fatalf("first: done=%v err=%v", done, err)
	}
	s.Close()
	s, err = Open(t.Context(), path) // keys survive a restart
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	again := Once{Key: "k1", Fingerprint: "send:hi", Result: []byte(`{"runId":"r2"}`)}
	evs, done, err := s.AppendOnce(t.Context(), again, "a", user("hi"))
	if err != nil || done == nil || string(done.Result) != `{"runId":"r1"}` || evs != nil {
		t.Fatalf("repeat: evs=%v done=%v err=%v", evs, done, err)
	}
	other := Once{Key: "k1", Fingerprint: "send:bye", Result: []byte(`{}`)}
	if _, _, err := s.AppendOnce(t.Context(), other, "a", user("bye")); !errors.Is(err, ErrKeyReused) {
		t.Fatalf("reused key: %v", err)
	}
	all, err := s.Events(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("%d events: a repeated key had a second effect", len(all))
	}
	// A write that fails leaves no key behind, so the retry can succeed.
	bad := Once{Key: "k2", Fingerprint: "f", Result: []byte(`{}`)}
	if _, _, err := s.AppendOnce(t.Context(), bad, "ghost", user("x")); !errors.Is(err, ErrNoSession) {
		t.Fatal(err)
	}
	if _, _, found, _ := s.Recall(t.Context(), "k2"); found {
		t.Fatal("a failed write kept its idempotency key")
	}
	if done, err := s.DeleteSession(t.Context(), "a", &Once{Key: "d", Fingerprint: "del a", Result: []byte(`{}`)}); err != nil || done != nil {
		t.Fatal(done, err)
	}
	if done, err := s.DeleteSession(t.Context(), "a", &Once{Key: "d", Fingerprint: "del a", Result: []byte(`{}`)}); err != nil || done == nil {
		t.Fatalf("repeated delete: %v %v", done, err)
	}
}

// TestSessionsWithUnknownEvents: SessionsToRecover finds a session holding
// an event of a type this version does not know and may not skip, without
// reading its log; one whose unknown event is ignorable is not.
func TestSessionsWithUnknownEvents(t *testing.T) {
	s := open(t)
	for _, id := range []string{"fine", "newer", "decorated"} {
		if _, _, err := s.CreateSession(t.Context(), id, id, t0, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	for q, id := range map[string]string{
		`UPDATE events SET type = 'future.essential', ignorable = 0 WHERE session = ?`:  "newer",
		`UPDATE events SET type = 'future.decoration', ignorable = 1 WHERE session = ?`: "decorated",
	} {
		if _, err := s.DB().Exec(q, id); err != nil {
			t.Fatal(err)
		}
	}
	_, got, err := s.SessionsToRecover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "newer" {
		t.Fatalf("sessions with unknown events: %v, want [newer]", got)
	}
}

// TestSessionsWithOpenRuns: SessionsToRecover finds the sessions whose last
// run.started has no run.finished after it.
func TestSessionsWithOpenRuns(t *testing.T) {
	s := open(t)
	run := func(typ event.Type, id string) event.Draft {
		if typ == event.RunStarted {
			return event.Draft{Type: typ, Time: t0, RunID: id, Payload: event.RunStartedPayload{}}
		}
		return event.Draft{Type: typ, Time: t0, RunID: id, Payload: event.RunFinishedPayload{Reason: "completed"}}
	}
	for id, drafts := range map[string][]event.Draft{
		"never":    nil,
		"closed":   {run(event.RunStarted, "r1"), run(event.RunFinished, "r1")},
		"open":     {run(event.RunStarted, "r1"), run(event.RunFinished, "r1"), run(event.RunStarted, "r2")},
		"justopen": {run(event.RunStarted, "r1")},
	} {
		if _, _, err := s.CreateSession(t.Context(), id, id, t0, nil, nil); err != nil {
			t.Fatal(err)
		}
		if len(drafts) > 0 {
			if _, err := s.Append(t.Context(), id, drafts...); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, unknown, err := s.SessionsToRecover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "justopen,open" || len(unknown) != 0 {
		t.Fatalf("open runs in %v, unknown types in %v", got, unknown)
	}
}

// TestAParentIsNotDeletedUnderItsBranches: the store refuses to delete a
// session a branch starts from (the branch's history begins with its
// events), in the deleting transaction itself, whatever checked before;
// the idempotency key of the refused delete is not spent, and once the
// branch is gone the parent can be deleted.
func TestAParentIsNotDeletedUnderItsBranches(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "root", "Root", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "b", "Branch", t0, &event.BranchPoint{Session: "root", Seq: 0}, nil); err != nil {
		t.Fatal(err)
	}
	once := &Once{Key: "del", Fingerprint: "f", Result: []byte(`{}`)}
	if _, err := s.DeleteSession(t.Context(), "root", once); !errors.Is(err, ErrHasBranches) {
		t.Fatalf("deleting a parent: %v, want ErrHasBranches", err)
	}
	for _, id := range []string{"root", "b"} {
		if _, err := s.Session(t.Context(), id); err != nil {
			t.Fatalf("%s after the refused delete: %v", id, err)
		}
	}
	if _, err := s.DeleteSession(t.Context(), "b", nil); err != nil {
		t.Fatal(err)
	}
	if done, err := s.DeleteSession(t.Context(), "root", once); err != nil || done != nil {
		t.Fatalf("deleting the parent without branches under the refused delete's key: %v, %+v", err, done)
	}
}

// TestLastSeqOfAny: a step's anchor is the run's last event of any of
// several types, in one query.
func TestLastSeqOfAny(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateSession(t.Context(), "s", "S", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	started := func(run string) event.Draft {
		return event.Draft{Type: event.StepStarted, Time: t0, RunID: run, Payload: event.StepStartedPayload{Step: 1}}
	}
	retried := func(run string) event.Draft {
		return event.Draft{Type: event.StepRetried, Time: t0, RunID: run, Payload: event.StepRetriedPayload{Step: 1, Attempt: 2}}
	}
	// seqs 1..4: started r, retried r, started other, user message
	if _, err := s.Append(t.Context(), "s", started("r"), retried("r"), started("other"), user("hi")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		run   string
		types []event.Type
		want  int64
	}{
		{"r", []event.Type{event.StepStarted, event.StepRetried}, 2},
		{"r", []event.Type{event.StepStarted}, 1},
		{"other", []event.Type{event.StepStarted, event.StepRetried}, 3},
		{"none", []event.Type{event.StepStarted}, -1},
		{"r", nil, -1},
	}
	for _, c := range cases {
		got, err := s.LastSeqOfAny(t.Context(), "s", c.run, c.types...)
		if err != nil || got != c.want {
			t.Errorf("LastSeqOfAny(%s, %v) = %d, %v; want %d", c.run, c.types, got, err, c.want)
		}
	}
}
