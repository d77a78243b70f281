package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/config"
	"quire/internal/app"
	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
	"quire/kernel/store"
)

// openOwner assembles the parts over dataDir as the window does.
func openOwner(t *testing.T, dataDir, ollamaURL string) *app.Parts {
	t.Helper()
	cfg := config.Config{DataDir: dataDir, OllamaHost: ollamaURL, Model: "qwen3:4b", NumCtx: 4096}
	p, err := app.Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), app.Owner)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDoctorCommand(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	cases := []struct {
		name     string
		host     string
		model    string
		wantCode int
		want     []string
	}{
		{"healthy", fake.URL(), "qwen3:4b", 0, []string{"ok   Ollama", "version 0.17.4", "ok   Chat model", "ok   SQLite", "FTS5", "ok   Database"}},
		{"model missing", fake.URL(), "llama3.2", 1, []string{"FAIL Chat model", "ollama pull llama3.2"}},
		{"ollama down", "http://127.0.0.1:1", "qwen3:4b", 1, []string{"FAIL Ollama", "ollama serve"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			dir := filepath.Join(t.TempDir(), "data")
			code := run([]string{"doctor", "-data-dir", dir, "-ollama-host", tc.host, "-model", tc.model}, &out, &errOut)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.wantCode, out.String(), errOut.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"frobnicate"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "unknown command") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestSessionsAndReplayCommands(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	sess, err := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Trip plans"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "pack list"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 1)
	s.Close()

	var out, errOut bytes.Buffer
	if code := run([]string{"sessions", "-data-dir", dir}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "Trip plans") || !strings.Contains(out.String(), sess.ID) {
		t.Fatalf("sessions: %d %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"replay", sess.ID, "-data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("replay: %d %s", code, errOut.String())
	}
	for _, want := range []string{"session.created", "input.received", "user.message", "pack list", "assistant.message", "You said: pack list", "run.finished"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"replay", sess.ID, "-from", "1", "-json", "-data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("replay -json: %d %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first protocol.Event
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Seq != 1 {
		t.Fatalf("first JSON line %q: %+v %v", lines[0], first, err)
	}
	errOut.Reset()
	if code := run([]string{"replay", "nope", "-data-dir", dir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "no such session") {
		t.Fatalf("replay of a missing session: %d %q", code, errOut.String())
	}
}

// TestReplayRequestIsWhatTheModelReceived rebuilds each request from the log
// alone and compares it, as canonical JSON, with the body the fake Ollama
// server received, over a multi-turn chat (tools, a system text and retries
// are covered by kernel/runtime's TestEveryRequestCanBeRebuiltFromTheLog).
func TestReplayRequestIsWhatTheModelReceived(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	sess, err := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "r"})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"first question", "second, with \"quotes\" and ünïcode", "third"} {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitRuns(t, s.Kernel(), sess.ID, i+1)
	}
	s.Close()
	got := fake.Requests()
	if len(got) != 3 {
		t.Fatalf("the model got %d requests", len(got))
	}
	for n := 1; n <= 3; n++ {
		var out, errOut bytes.Buffer
		if code := run([]string{"replay", sess.ID, "-request", fmt.Sprint(n), "-data-dir", dir}, &out, &errOut); code != 0 {
			t.Fatalf("replay -request %d: %s", n, errOut.String())
		}
		want, err := app.CanonicalJSON(got[n-1].Body)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(out.String()) != string(want) {
			t.Fatalf("request %d rebuilt from the log:\n%s\nreceived by the model:\n%s", n, out.String(), want)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"replay", sess.ID, "-request", "4", "-data-dir", dir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "no such step") {
		t.Fatalf("a step that does not exist: %d %q", code, errOut.String())
	}
}

// TestIndexAndSearchThroughTheCLI: `quire index` then `quire search` find a
// document with its citation, with no embedding model (the offline embedder).
func TestIndexAndSearchThroughTheCLI(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir, docs := t.TempDir(), t.TempDir()
	note := "# Garden\n\n## Tomatoes\n\nWater the tomatoes every morning in July.\n"
	if err := os.WriteFile(filepath.Join(docs, "garden.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"index", "-data-dir", dir, "-ollama-host", fake.URL(), docs}, &out, &errOut); code != 0 {
		t.Fatalf("index: %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"search", "-data-dir", dir, "-ollama-host", fake.URL(), "watering", "tomatoes"}, &out, &errOut); code != 0 {
		t.Fatalf("search: %d %s", code, errOut.String())
	}
	for _, want := range []string{"garden.md", "Tomatoes", "Water the tomatoes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("search output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCommandWordAmongFlags: flags may come before the command word as
// well as after it (and after its arguments); `quire -data-dir D search X`
// searches instead of opening the window.
func TestCommandWordAmongFlags(t *testing.T) {
	tests := []struct {
		args []string
		cmd  string
		rest []string
	}{
		{nil, "", nil},
		{[]string{"-data-dir", "D"}, "", []string{"-data-dir", "D"}},
		{[]string{"search", "x"}, "search", []string{"x"}},
		{[]string{"-data-dir", "D", "search", "x"}, "search", []string{"-data-dir", "D", "x"}},
		{[]string{"-data-dir=D", "-model", "m", "replay", "S", "-from", "2"}, "replay", []string{"-data-dir=D", "-model", "m", "S", "-from", "2"}},
		{[]string{"-data-dir", "search", "sessions"}, "sessions", []string{"-data-dir", "search"}},
		{[]string{"-bogus", "search"}, "", []string{"-bogus", "search"}},
		// A "--" that ends the flags before the command word ends nothing
		// after it: the command's own flags still parse.
		{[]string{"-data-dir", "D", "--", "search", "-n", "3", "x"}, "search", []string{"-data-dir", "D", "-n", "3", "x"}},
	}
	for _, tt := range tests {
		cmd, rest := commandWord(tt.args)
		if cmd != tt.cmd || !slices.Equal(rest, tt.rest) {
			t.Errorf("commandWord(%q) = %q %q, want %q %q", tt.args, cmd, rest, tt.cmd, tt.rest)
		}
	}
}

func TestFlagsBeforeAndAfterTheCommand(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir, docs := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "garden.md"), []byte("# Garden\n\nWater the tomatoes every morning.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-data-dir", dir, "-ollama-host", fake.URL(), "index", docs}, &out, &errOut); code != 0 {
		t.Fatalf("flags before index: %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, args := range [][]string{
		{"-data-dir", dir, "-ollama-host", fake.URL(), "search", "tomatoes"},
		{"search", "-data-dir", dir, "-ollama-host", fake.URL(), "tomatoes"},
		{"search", "tomatoes", "-data-dir", dir, "-ollama-host", fake.URL(), "-n", "1"},
	} {
		out.Reset()
		errOut.Reset()
		if code := run(args, &out, &errOut); code != 0 || !strings.Contains(out.String(), "garden.md") {
			t.Errorf("quire %q: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
	errOut.Reset()
	if code := run([]string{"-data-dir", dir, "serve", "extra"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "takes no arguments") {
		t.Errorf("serve with an argument: exit %d, %q", code, errOut.String())
	}
}

// TestReadOnlyCommandsNeverWrite: a database that a crash left with a run
// open — read-only on disk — is read by `quire sessions`, `replay` (also
// -request N and -json), `search` and `doctor`, and none of them writes to
// it: the run is still open and the file is the same, byte for byte. The
// owner, by contrast, closes the run (so the check would see a write).
func TestReadOnlyCommandsNeverWrite(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 2}})
	live, docs := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "garden.md"), []byte("# Garden\n\nWater the tomatoes every morning.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"index", "-data-dir", live, "-ollama-host", fake.URL(), docs}, &out, &errOut); code != 0 {
		t.Fatalf("index: %d %s", code, errOut.String())
	}
	p := openOwner(t, live, fake.URL())
	sess, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Crashed"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), p.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "water the tomatoes?"}); err != nil {
		t.Fatal(err)
	}
	// Both chunks are in the log and the reply hangs: nothing appends now,
	// so the files can be copied as a kill -9 would leave them.
	waitFor(t, p.Kernel(), sess.ID, "assistant.delta")
	testkit.Until(t, p.Kernel(), sess.ID, "both chunks of the reply", func(evs []protocol.Event) bool {
		return strings.Contains(deltaText(evs), "partial")
	})
	// What a crash leaves: the database file and its WAL (and the WAL's
	// index) as they were, with the run open.
	crashed := func() string {
		dir := t.TempDir()
		for _, name := range []string{"quire.db", "quire.db-wal", "quire.db-shm"} {
			b, err := os.ReadFile(filepath.Join(live, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dir, control := crashed(), crashed()
	p.Close()
	db := filepath.Join(dir, "quire.db")
	for _, f := range []string{db, db + "-wal"} {
		if err := os.Chmod(f, 0o400); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	walBefore, err := os.ReadFile(db + "-wal")
	if err != nil || len(walBefore) == 0 {
		t.Fatalf("the crashed copy has no WAL to read (%d bytes, %v): the test would not see a reader replay it", len(walBefore), err)
	}
	filesBefore := names(t, dir)
	if open := openRuns(t, db); !slices.Equal(open, []string{sess.ID}) {
		t.Fatalf("the crashed copy has open runs %v, want %s's", open, sess.ID)
	}

	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"sessions"}, 0, "Crashed"},
		{[]string{"replay", sess.ID}, 0, "run.started"},
		{[]string{"replay", sess.ID, "-json", "-sensitive"}, 0, `"type":"assistant.delta"`},
		{[]string{"replay", sess.ID, "-request", "1"}, 0, "water the tomatoes?"},
		{[]string{"search", "tomatoes"}, 0, "garden.md"},
		{[]string{"doctor"}, 0, "ok   Database"},
	} {
		out.Reset()
		errOut.Reset()
		args := append(c.args, "-data-dir", dir, "-ollama-host", fake.URL())
		if code := run(args, &out, &errOut); code != c.code || !strings.Contains(out.String(), c.says) {
			t.Errorf("quire %q: exit %d, want %d saying %q\n%s%s", c.args, code, c.code, c.says, out.String(), errOut.String())
		}
		if strings.Contains(out.String(), "run.finished") || strings.Contains(out.String(), "run.interrupted") {
			t.Errorf("quire %q: the open run was closed:\n%s", c.args, out.String())
		}
		after, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Fatalf("quire %q changed the database file", c.args)
		}
		if wal, err := os.ReadFile(db + "-wal"); err != nil || !bytes.Equal(wal, walBefore) {
			t.Fatalf("quire %q changed the WAL (%d bytes before, %d after, %v)", c.args, len(walBefore), len(wal), err)
		}
		if files := names(t, dir); !slices.Equal(files, filesBefore) {
			t.Fatalf("quire %q changed the data folder's files: %v, before %v", c.args, files, filesBefore)
		}
		if open := openRuns(t, db); !slices.Equal(open, []string{sess.ID}) {
			t.Fatalf("after quire %q the open runs are %v", c.args, open)
		}
	}

	// The owner recovers: the same check sees its write.
	owner := openOwner(t, control, fake.URL())
	owner.Close()
	if open := openRuns(t, filepath.Join(control, "quire.db")); len(open) != 0 {
		t.Fatalf("the owner left the run open: %v", open)
	}
}

// names lists a folder's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// deltaText is the streamed text of a session's events so far.
func deltaText(evs []protocol.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == "assistant.delta" {
			var p struct {
				Content string `json:"content"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			b.WriteString(p.Content)
		}
	}
	return b.String()
}

// openRuns lists the sessions with an open run, reading the file read-only.
func openRuns(t *testing.T, path string) []string {
	t.Helper()
	st, err := store.OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, err := st.SessionsWithOpenRuns(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// waitFor follows the session's log until an event of type typ.
func waitFor(t *testing.T, k protocol.Kernel, session, typ string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	evs, errp := k.Follow(ctx, session, 0)
	for e := range evs {
		if e.Type == typ {
			return
		}
	}
	t.Fatalf("no %s in the log (%v)", typ, errp())
}
