package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"database/sql"
	"quire/assembly"
	"quire/config"
	"quire/host/httpapi"
	"quire/host/window"
	"quire/internal/datadir"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"strconv"
)

// openOwner assembles the parts over dataDir as the window does.
func openOwner(t *testing.T, dataDir, ollamaURL string) *assembly.Parts {
	t.Helper()
	cfg := config.Config{DataDir: dataDir, OllamaHost: ollamaURL, Model: "qwen3:4b", NumCtx: 4096}
	p, err := assembly.Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), assembly.Owner)
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

// The CLI answers as gh and ollama do: -h is the command's own help (its
// lines, its flags), on stdout with status 0; a wrong flag is one line and
// a pointer to that help; version and --version say the version.
func TestCommandHelpAndVersion(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		notOut []string
		stderr []string
		notErr []string
	}{
		{"doctor -h", []string{"doctor", "-h"}, 0, []string{"quire doctor [flags]", "Flags every command takes:", "-data-dir"}, []string{"quire serve"}, nil, nil},
		{"run --help", []string{"run", "--help"}, 0, []string{"quire run [-json]", "-approve string", "-ask string"}, []string{"quire chat"}, nil, nil},
		{"mcp -h lists its three forms", []string{"mcp", "-h"}, 0, []string{"quire mcp list", "quire mcp add NAME", "quire mcp remove NAME"}, []string{"quire skills"}, nil, nil},
		{"help search", []string{"help", "search"}, 0, []string{"quire search [-n N]", "-mode string"}, []string{"quire doctor"}, nil, nil},
		{"serve -h", []string{"serve", "-h"}, 0, []string{"quire serve [flags]", "-addr string"}, []string{"quire doctor"}, nil, nil},
		{"help", []string{"help"}, 0, []string{"quire doctor [flags]", "quire serve [flags]"}, nil, nil, nil},
		{"-h", []string{"-h"}, 0, []string{"quire doctor [flags]", "quire serve [flags]"}, nil, nil, nil},
		{"a wrong flag", []string{"doctor", "-frob"}, 2, nil, nil, []string{"-frob", "Run 'quire doctor -h' for usage."}, []string{"quire serve"}},
		{"help of nothing", []string{"help", "frob"}, 2, nil, nil, []string{`unknown command "frob"`}, nil},
		{"version", []string{"version"}, 0, []string{"quire version 0."}, nil, nil, nil},
		{"--version", []string{"--version"}, 0, []string{"quire version 0."}, nil, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(c.args, &out, &errOut); code != c.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.code, out.String(), errOut.String())
			}
			for _, w := range c.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range c.notOut {
				if strings.Contains(out.String(), w) {
					t.Errorf("stdout has %q (the global help?):\n%s", w, out.String())
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
			for _, w := range c.notErr {
				if strings.Contains(errOut.String(), w) {
					t.Errorf("stderr has %q:\n%s", w, errOut.String())
				}
			}
		})
	}
}

// tripPlans is a conversation "Trip plans" of one message, "pack list",
// and its (echoed) reply.
func tripPlans(t *testing.T, k protocol.Kernel) protocol.Session {
	t.Helper()
	sess, err := protocol.Run[protocol.Session](t.Context(), k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Trip plans"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "pack list"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, k, sess.ID, 1)
	return sess
}

func TestSessionsAndReplayCommands(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	sess := tripPlans(t, s.Kernel())
	worker, err := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession,
		protocol.CreateSessionPayload{Title: "Organise inbox/a.md", Kind: protocol.SessionWorker})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	var out, errOut bytes.Buffer
	// Every session is listed, a batch worker's too, each with its kind.
	if code := run([]string{"sessions", "-data-dir", dir}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "\tchat\tTrip plans\n") || !strings.Contains(out.String(), sess.ID) ||
		!strings.Contains(out.String(), worker.ID) || !strings.Contains(out.String(), "\tworker\tOrganise inbox/a.md\n") {
		t.Fatalf("sessions: %d %q %q", code, out.String(), errOut.String())
	}
	// -json, as its siblings have it: the same sessions, as the page gets them.
	out.Reset()
	var listed []protocol.Session
	if code := run([]string{"sessions", "-json", "-data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("sessions -json: %d %q", code, errOut.String())
	}
	if err := json.Unmarshal(out.Bytes(), &listed); err != nil {
		t.Fatalf("sessions -json is not a JSON list of sessions: %v\n%s", err, out.String())
	}
	if !slices.ContainsFunc(listed, func(x protocol.Session) bool { return x.ID == sess.ID && x.Title == "Trip plans" }) ||
		!slices.ContainsFunc(listed, func(x protocol.Session) bool { return x.ID == worker.ID && x.Kind == protocol.SessionWorker }) {
		t.Errorf("sessions -json lists %+v", listed)
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
		want, err := assembly.CanonicalJSON(got[n-1].Body)
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

// TestInspectorCopiesWhatReplayPrints: the inspector's "copy request as
// JSON" (the operation Calls.Request, from the owner's serve
// backend, while the owner runs) is byte for byte what `quire replay
// SESSION -request N` prints, and the call's detail says that size.
func TestInspectorCopiesWhatReplayPrints(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	p := openOwner(t, dir, fake.URL())
	sess, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "r"})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"first, with \"quotes\" and ünïcode <b>", "second"} {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), p.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitRuns(t, p.Kernel(), sess.ID, i+1)
	}
	h := p.Serve(p.ServeBackend(t.Context(), ""), fstest.MapFS{}, slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	defer srv.Close()
	link, err := url.Parse(h.Link(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	// op calls the operation name with args: its status and answer.
	op := func(name string, args ...any) (int, []byte) {
		t.Helper()
		body, _ := json.Marshal(args)
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+httpapi.OpPath+name, bytes.NewReader(body))
		req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+link.Query().Get(httpapi.TokenQuery))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	// A call the session never made is not found, in words.
	if code, b := op("Calls.Request", sess.ID, 3); code != http.StatusNotFound {
		t.Fatalf("a call never made: %d %s", code, b)
	}
	for n := 1; n <= 2; n++ {
		code, b := op("Calls.Request", sess.ID, n)
		var copied string // the bytes come as one JSON string, to read as text
		if code != 200 || json.Unmarshal(b, &copied) != nil {
			t.Fatalf("Calls.Request %d: %d %s", n, code, b)
		}
		var call protocol.Call
		if code, b := op("Calls.Call", sess.ID, n); code != 200 || json.Unmarshal(b, &call) != nil {
			t.Fatalf("Calls.Call %d: %d %s", n, code, b)
		}
		var out, errOut bytes.Buffer
		if code := run([]string{"replay", sess.ID, "-request", fmt.Sprint(n), "-data-dir", dir}, &out, &errOut); code != 0 {
			t.Fatalf("replay -request %d: %s", n, errOut.String())
		}
		if !bytes.Equal([]byte(copied), out.Bytes()) {
			t.Fatalf("call %d copied:\n%q\nreplay printed:\n%q", n, copied, out.Bytes())
		}
		if call.Summary.N != n || call.RequestBytes != out.Len() {
			t.Fatalf("call %d's detail: n %d, %d bytes; replay printed %d", n, call.Summary.N, call.RequestBytes, out.Len())
		}
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
	ids, _, err := st.SessionsToRecover(t.Context())
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

// socketClient talks to an owner's local channel (quire.sock) as any
// client of its routes does.
type socketClient struct {
	t *testing.T
	c *http.Client
}

func dialOwner(t *testing.T, dataDir string) *socketClient {
	var d net.Dialer
	path := datadir.SocketPath(dataDir)
	return &socketClient{t: t, c: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "unix", path) },
	}}}
}

func (s *socketClient) request(ctx context.Context, method, path string, body any) *http.Response {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://quire"+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.c.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s over the local channel: %v", method, path, err)
	}
	return resp
}

// call sends a request and decodes the answer into out (when not nil).
func (s *socketClient) call(method, path string, body, out any) {
	s.t.Helper()
	resp := s.request(s.t.Context(), method, path, body)
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		s.t.Fatalf("%s %s: %s %s", method, path, resp.Status, b)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			s.t.Fatal(err)
		}
	}
}

// events is every event of a session, whatever its visibility.
func (s *socketClient) events(session string) []protocol.Event {
	var evs []protocol.Event
	s.call(http.MethodGet, "/api/sessions/"+session+"/events?internal=1&sensitive=1", nil, &evs)
	return evs
}

// until follows the owner's update stream (SSE) until ok holds for the
// session's events seen so far; bounded by Patience, woken by each update.
func (s *socketClient) until(session, what string, ok func([]protocol.Event) bool) []protocol.Event {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), testkit.Patience)
	defer cancel()
	resp := s.request(ctx, http.MethodGet, "/api/stream?internal=1&sensitive=1", nil)
	defer resp.Body.Close()
	// What was appended before the stream opened is read once, after it
	// opened, so nothing falls between the two.
	evs := s.events(session)
	if ok(evs) {
		return evs
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if name, found := strings.CutPrefix(line, "event: "); found {
			event = name
			continue
		}
		data, found := strings.CutPrefix(line, "data: ")
		if !found || event != "events" {
			continue
		}
		var batch []protocol.Event
		if err := json.Unmarshal([]byte(data), &batch); err != nil {
			s.t.Fatal(err)
		}
		for _, e := range batch {
			if e.Session == session && (len(evs) == 0 || e.Seq > evs[len(evs)-1].Seq) {
				evs = append(evs, e)
			}
		}
		if ok(evs) {
			return evs
		}
	}
	s.t.Fatalf("no %s in %s's log (%v); seen: %v", what, session, sc.Err(), eventTypes(evs))
	return nil
}

func eventTypes(evs []protocol.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func countType(evs []protocol.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// startServe runs `quire serve` as main wires it, on a free port, until
// the test stops it; it returns once the server has said its address.
func startServe(t *testing.T, cfg config.Config) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	outR, outW := io.Pipe()
	var errOut bytes.Buffer // read once runServe has returned
	code := make(chan int, 1)
	go func() {
		code <- runServe(ctx, config.NewStore(cfg), fstest.MapFS{}, "127.0.0.1:0", slog.New(slog.DiscardHandler), outW, &errOut)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "Quire is serving on ") {
		cancel()
		<-code
		t.Fatalf("quire serve said %q (%v); stderr: %s", line, err, errOut.String())
	}
	go io.Copy(io.Discard, outR)
	stopped := false
	var exit int
	stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			exit = <-code
		}
		return exit
	}
	t.Cleanup(func() { stop() })
	return stop
}

// within runs f, failing the test when it has not returned after
// Patience: a command that should be refused at once but is not would
// otherwise run until the test binary's own timeout.
func within(t *testing.T, what string, f func() int) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- f() }()
	select {
	case code := <-done:
		return code
	case <-time.After(testkit.Patience):
		t.Fatalf("%s did not return", what)
		return -1
	}
}

// TestEveryCommandAgainstALiveOwner (issue 13, "Done when"): with `quire
// serve` owning a data folder and a run waiting on a permission question,
// every CLI command runs against the same folder — the readers read and
// append nothing, `index` goes through the owner's local channel, a second
// `quire serve` and a second window are refused with a sentence naming the
// owner — and then the question is answered, the run finishes once, and
// every log passes core.Verify and core.Replay. Today's code (no lock)
// let the second serve and window recover the live run as interrupted.
func TestEveryCommandAgainstALiveOwner(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "create_note", Arguments: []byte(`{"path":"plan.md","content":"# Plan\n"}`)}}},
		ollamatest.Turn{Content: []string{"I made plan.md."}},
	)
	data, notes, docs := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "garden.md"), []byte("# Garden\n\nWater the tomatoes every morning.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{DataDir: data, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: config.DefaultNumCtx, NotesDir: notes}
	stop := startServe(t, cfg)
	owner := dialOwner(t, data)

	var sess protocol.Session
	owner.call(http.MethodPost, "/api/sessions", protocol.CreateSessionPayload{Title: "Live"}, &sess)
	owner.call(http.MethodPost, "/api/sessions/"+sess.ID+"/messages", map[string]string{"text": "make a plan note"}, nil)
	asked := owner.until(sess.ID, "a permission question", func(evs []protocol.Event) bool {
		return countType(evs, "permission.requested") == 1
	})
	var question struct {
		Calls []struct {
			ID string `json:"id"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(asked[len(asked)-1].Payload, &question); err != nil || len(question.Calls) != 1 {
		t.Fatalf("the question %s (%v)", asked[len(asked)-1].Payload, err)
	}
	before := owner.events(sess.ID)

	flags := []string{"-data-dir", data, "-ollama-host", fake.URL()}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"doctor"}, 0, "ok   Database"},
		{[]string{"doctor"}, 0, fmt.Sprintf("ok   Owner           `quire serve` (process %d, since ", os.Getpid())},
		{[]string{"sessions"}, 0, "Live"},
		{[]string{"replay", sess.ID}, 0, "permission.requested"},
		{[]string{"replay", sess.ID, "-json", "-internal", "-sensitive"}, 0, `"type":"run.started"`},
		{[]string{"replay", sess.ID, "-request", "1"}, 0, "make a plan note"},
		{[]string{"index", docs}, 0, "1 files indexed, 0 not indexed"},
		{[]string{"search", "tomatoes"}, 0, "garden.md"},
		{[]string{"eval", "-filter", "adversarial-call-as-text"}, 0, "1/1 scenarios passed"},
	} {
		var out, errOut bytes.Buffer
		code := within(t, "quire "+c.args[0], func() int { return run(append(c.args, flags...), &out, &errOut) })
		if code != c.code || !strings.Contains(out.String(), c.says) {
			t.Errorf("quire %q: exit %d, want %d saying %q\n%s%s", c.args, code, c.code, c.says, out.String(), errOut.String())
		}
		if now := owner.events(sess.ID); len(now) != len(before) {
			t.Fatalf("quire %q changed the live log: %v, was %v", c.args, eventTypes(now), eventTypes(before))
		}
	}
	// `quire index` went through the owner: its documents list has the file.
	var state protocol.DocumentsState
	owner.call(http.MethodPost, httpapi.OpPath+"Documents.State", []any{}, &state)
	if len(state.Documents) != 1 || state.Documents[0].Status != "done" {
		t.Errorf("the owner's documents after quire index: %+v", state.Documents)
	}

	// A second `quire serve` is refused, naming the owner.
	var errOut bytes.Buffer // read once it has returned
	code := within(t, "a second quire serve", func() int {
		return runServe(t.Context(), config.NewStore(cfg), fstest.MapFS{}, "127.0.0.1:0", slog.New(slog.DiscardHandler), io.Discard, &errOut)
	})
	pid := fmt.Sprintf("process %d", os.Getpid())
	if code != 1 || !strings.Contains(errOut.String(), "is owned by `quire serve` ("+pid) || !strings.Contains(errOut.String(), "did not start") ||
		!strings.Contains(errOut.String(), "http://127.0.0.1:") {
		t.Errorf("the second quire serve: exit %d, said %q", code, errOut.String())
	}
	// A second window says where Quire is open (a browser, at its address).
	// Started from the desktop icon no one reads stderr: the same sentence
	// is shown on the desktop.
	var winErr bytes.Buffer
	var shown notices
	code = within(t, "a second window", func() int {
		return runWindow(t.Context(), config.NewStore(cfg), fstest.MapFS{}, slog.New(slog.DiscardHandler), &winErr, shown.add)
	})
	if code != 1 || !strings.Contains(winErr.String(), "Quire is already open at http://127.0.0.1:") || strings.Contains(winErr.String(), "token") {
		t.Errorf("the second window: exit %d, said %q", code, winErr.String())
	}
	if len(shown) != 1 || !strings.Contains(winErr.String(), shown[0]) || !strings.Contains(shown[0], "Quire is already open at http://127.0.0.1:") {
		t.Errorf("the second window showed %q on the desktop; it said %q on stderr", shown, winErr.String())
	}
	if now := owner.events(sess.ID); len(now) != len(before) {
		t.Fatalf("a refused owner changed the live log: %v", eventTypes(now))
	}

	// The question is still open: answering it runs the call and ends the run, once.
	owner.call(http.MethodPost, "/api/sessions/"+sess.ID+"/answer", protocol.AnswerPayload{CallIDs: []string{question.Calls[0].ID}, Allowed: true}, nil)
	evs := owner.until(sess.ID, "the end of the run", func(evs []protocol.Event) bool { return countType(evs, "run.finished") == 1 })
	if _, err := os.Stat(filepath.Join(notes, "plan.md")); err != nil {
		t.Errorf("the allowed call did not run: %v", err)
	}
	if code := stop(); code != 0 {
		t.Errorf("quire serve exited %d", code)
	}
	if n := countType(evs, "run.interrupted"); n != 0 {
		t.Errorf("the live run was interrupted %d times: %v", n, eventTypes(evs))
	}
	checkLogs(t, filepath.Join(data, "quire.db"))
	if _, held, err := datadir.Held(data); held || err != nil {
		t.Errorf("the stopped owner still holds the folder (%v)", err)
	}
	if _, err := os.Lstat(datadir.SocketPath(data)); !os.IsNotExist(err) {
		t.Errorf("the stopped owner left its socket: %v", err)
	}
}

// checkLogs runs the log checker over every session of a database file,
// which must hold some.
func checkLogs(t *testing.T, path string) {
	t.Helper()
	if testkit.CheckFile(t, path) == 0 {
		t.Fatal("sessions: the database holds none to check")
	}
}

// TestASecondWindowBringsTheFirstToTheFront: starting the window while a
// window owns the data folder asks it, over the local channel, to come to
// the front, says so, and exits 0 — opening nothing itself.
func TestASecondWindowBringsTheFirstToTheFront(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	cfg := config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096}
	p, err := assembly.OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), assembly.Owner, assembly.Extras{Kind: datadir.Window})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The first window as runWindow wires it, with Wails' raise replaced.
	raised := make(chan struct{}, 4)
	_, first := window.New(window.Ports{Kernel: p.Kernel(), Doctor: p.Doctor}, "", slog.New(slog.DiscardHandler),
		window.WithRaise(func(context.Context) { raised <- struct{}{} }), window.WithEvents(func(context.Context, string, ...any) {}, nil))
	asked := make(chan struct{}, 1)
	b := p.ServeBackend(t.Context(), "")
	b.Show = func(ctx context.Context) error {
		asked <- struct{}{}
		return first.Show(ctx)
	}
	p.ServeLocal(t.Context(), b)

	// A second start while the first window is still opening waits for it.
	var errOut bytes.Buffer
	var shown notices // read once the start has returned
	code := make(chan int, 1)
	go func() {
		code <- runWindow(t.Context(), config.NewStore(cfg), fstest.MapFS{}, slog.New(slog.DiscardHandler), &errOut, shown.add)
	}()
	select {
	case <-asked:
	case c := <-code:
		t.Fatalf("the second start ended (exit %d) without asking the first window: %s", c, errOut.String())
	}
	if len(raised) != 0 {
		t.Fatal("a window that is not up yet was raised")
	}
	wctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first.Startup(wctx) // what Wails does once the window is up
	defer first.Shutdown(wctx)
	if c := <-code; c != 0 || !strings.Contains(errOut.String(), "Quire is already open in a window (process "+fmt.Sprint(os.Getpid())) ||
		!strings.Contains(errOut.String(), "brought to the front") {
		t.Errorf("the second window: exit %d, said %q", c, errOut.String())
	}
	if len(shown) != 0 {
		t.Errorf("a start that raised the first window also showed %q", shown)
	}
	if len(raised) != 1 {
		t.Errorf("the first window was raised %d times, want once", len(raised))
	}
}

// notices are the messages a start showed on the desktop.
type notices []string

func (n *notices) add(_ context.Context, msg string) { *n = append(*n, msg) }

// showFunc is a first window's answer to Show.
type showFunc func(context.Context) error

func (f showFunc) Show(ctx context.Context) error { return f(ctx) }

// TestSecondStartSaysWhereQuireIs: each kind of holder gets its sentence
// and status; a window that does not come to the front is named with what
// to do.
func TestSecondStartSaysWhereQuireIs(t *testing.T) {
	since := time.Date(2026, 12, 1, 10, 58, 0, 0, time.Local)
	stuck := showFunc(func(context.Context) error { return errors.New("the window is still opening") })
	never := showFunc(func(context.Context) error { t.Error("Show was asked of a holder with no window"); return nil })
	for _, c := range []struct {
		name  string
		h     datadir.Holder
		owner showFunc
		code  int
		says  []string
	}{
		{"a stuck window", datadir.Holder{PID: 41, Kind: datadir.Window, Since: since}, stuck, 1,
			[]string{"already open in a window (process 41, since 10:58 on 1 Dec 2026)", "did not come to the front: the window is still opening", "kill 41"}},
		{"serve not listening yet", datadir.Holder{PID: 42, Kind: datadir.Serve, Since: since}, never, 1,
			[]string{"already open in a browser", "`quire serve` (process 42", "kill 42"}},
		{"an index", datadir.Holder{PID: 43, Kind: datadir.Index, Since: since}, never, 1,
			[]string{"in use by `quire index` (process 43", "when it has finished"}},
		{"a holder not recorded yet", datadir.Holder{}, never, 1, []string{"in use by another Quire process"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errOut bytes.Buffer
			var shown notices
			code := secondStart(t.Context(), &datadir.InUseError{Dir: "/data", Holder: c.h}, c.owner, &errOut, shown.add)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, errOut.String())
			}
			if len(shown) != 1 || strings.TrimSpace(errOut.String()) != "quire: "+shown[0] {
				t.Errorf("the desktop was shown %q; stderr says %q", shown, errOut.String())
			}
			for _, w := range c.says {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("%q lacks %q", errOut.String(), w)
				}
			}
		})
	}
}

// TestDesktopNoticeUsesWhatTheDesktopHas: the message goes to zenity when
// it is installed (a dialog that stays until read), else to notify-send
// with its markup escaped, else nowhere but stderr; with no display it is
// not tried. The programs are stand-ins on PATH that record how they were
// called, so the test runs where neither is installed.
func TestDesktopNoticeUsesWhatTheDesktopHas(t *testing.T) {
	const msg = "Quire is already open at http://127.0.0.1:8765: <this> & that"
	for _, c := range []struct {
		name     string
		programs []string
		display  string
		called   string
		wantArgs []string
	}{
		{"both", []string{"zenity", "notify-send"}, ":0", "zenity", []string{"--info", "--title=Quire", "--no-markup", "--width=480", "--text=" + msg}},
		{"notify-send only", []string{"notify-send"}, ":0", "notify-send",
			[]string{"--app-name=Quire", "--icon=quire", "Quire did not open a window", "Quire is already open at http://127.0.0.1:8765: &lt;this&gt; &amp; that"}},
		{"neither", nil, ":0", "", nil},
		{"no display", []string{"zenity", "notify-send"}, "", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
			for _, p := range c.programs {
				// Each argument on a line of its own, after the program's name.
				script := "#!/bin/sh\n{ echo " + p + "; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } >> " + calls + "\n"
				if err := os.WriteFile(filepath.Join(bin, p), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			t.Setenv("DISPLAY", c.display)
			t.Setenv("WAYLAND_DISPLAY", "")
			desktopNotice(slog.New(slog.DiscardHandler))(t.Context(), msg)
			got, err := os.ReadFile(calls)
			if c.called == "" {
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("a program was called: %q (%v)", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s was not called: %v", c.called, err)
			}
			if want := strings.Join(append([]string{c.called}, c.wantArgs...), "\n") + "\n"; string(got) != want {
				t.Fatalf("called\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// BenchmarkSearchFirstResult is `quire search`'s time to its first result
// on the SciFact index (5,183 abstracts, 7,598 chunks; docs/BENCHMARKS-NOTEBOOK.md,
// "CLI time to first result"), given the data:
//
//	go test -run '^$' -bench SearchFirstResult -benchtime 20x -scifact ../shared/data/scifact .
//
// The index is built once, by `quire index` over the abstracts written as
// Markdown files. "process" runs this test binary again as `quire` (a
// fresh process each time, as a user's shell starts one: the Go runtime's
// start, the settings, the read-only store's open and checks, the index's
// open, the search) and measures from the start until the first line of
// the results arrives on its standard output; "inprocess" is the same
// command in this process, for a profile (-cpuprofile). Besides ns/op
// (the mean) each reports the median and 95th percentile as p50-ms and
// p95-ms, and the CPU time per search as cpu-ms/op (the child's, or this
// process's), the figure to compare on a shared machine. Ollama is pointed at a closed port, so the configured embedding
// model is missing and the built-in embedder is in use, as on a machine
// without one.
func BenchmarkSearchFirstResult(b *testing.B) {
	if *benchSciFact == "" {
		b.Skip("no -scifact data folder given")
	}
	data := sciFactDataDir(b, *benchSciFact)
	queries := sciFactQueries(b, *benchSciFact)
	args := func(i int) []string {
		return []string{"search", "-data-dir", data, "-ollama-host", "http://127.0.0.1:1", "-n", "8", queries[i%len(queries)]}
	}
	b.Run("process", func(b *testing.B) {
		self, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		ds := make([]time.Duration, 0, b.N)
		var cpu time.Duration
		i := 0
		for b.Loop() {
			cmd := exec.Command(self, args(i)...)
			cmd.Env = append(os.Environ(), "QUIRE_BENCH_AS_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			r := bufio.NewReader(out)
			if _, err := r.ReadString('\n'); err != nil {
				b.Fatalf("no result from %q: %v\n%s", args(i), err, stderr.String())
			}
			ds = append(ds, time.Since(start))
			io.Copy(io.Discard, r)
			if err := cmd.Wait(); err != nil {
				b.Fatalf("%q: %v\n%s", args(i), err, stderr.String())
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			i++
		}
		reportQuantiles(b, ds)
		b.ReportMetric(float64(cpu)/1e6/float64(len(ds)), "cpu-ms/op")
	})
	b.Run("inprocess", func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		var cpu time.Duration
		i := 0
		for b.Loop() {
			var stdout, stderr bytes.Buffer
			before := processCPU()
			start := time.Now()
			if code := run(args(i), &stdout, &stderr); code != 0 || stdout.Len() == 0 {
				b.Fatalf("search %q: exit %d\n%s", args(i), code, stderr.String())
			}
			ds = append(ds, time.Since(start))
			cpu += processCPU() - before
			i++
		}
		reportQuantiles(b, ds)
		b.ReportMetric(float64(cpu)/1e6/float64(len(ds)), "cpu-ms/op")
	})
}

// processCPU is the CPU time this process has used, user and system: on a
// machine shared with other work it says what a command costs better than
// the wall clock does.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchSciFact = flag.String("scifact", "", "SciFact data folder (docs.jsonl, queries_train.jsonl); empty skips BenchmarkSearchFirstResult")

// TestMain lets BenchmarkSearchFirstResult run this binary as `quire`.
func TestMain(m *testing.M) {
	if os.Getenv("QUIRE_BENCH_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func reportQuantiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100])/1e6, "p95-ms")
}

// sciFactDataDir writes the abstracts as Markdown files ("# title", blank
// line, abstract) and indexes them with `quire index` into a new data
// folder, which it returns.
func sciFactDataDir(b *testing.B, dir string) string {
	b.Helper()
	corpus, data := filepath.Join(b.TempDir(), "scifact"), filepath.Join(b.TempDir(), "data")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // older than the racy window: the pass's fingerprint is kept
	eachJSONLine(b, filepath.Join(dir, "docs.jsonl"), func(line []byte) {
		var d struct{ ID, Title, Text string }
		if err := json.Unmarshal(line, &d); err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(corpus, d.ID+".md")
		if err := os.WriteFile(p, []byte("# "+d.Title+"\n\n"+d.Text+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	})
	var out, errOut bytes.Buffer
	if code := run([]string{"index", "-data-dir", data, "-ollama-host", "http://127.0.0.1:1", corpus}, &out, &errOut); code != 0 {
		b.Fatalf("index: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	return data
}

// sciFactQueries are the training claims' texts.
func sciFactQueries(b *testing.B, dir string) []string {
	b.Helper()
	var qs []string
	eachJSONLine(b, filepath.Join(dir, "queries_train.jsonl"), func(line []byte) {
		var q struct{ Text string }
		if err := json.Unmarshal(line, &q); err != nil {
			b.Fatal(err)
		}
		qs = append(qs, q.Text)
	})
	if len(qs) == 0 {
		b.Fatal("no queries in queries_train.jsonl")
	}
	return qs
}

func eachJSONLine(b *testing.B, path string, f func([]byte)) {
	b.Helper()
	file, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			f(sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
}

// runJSON parses `quire run -json`'s stdout: every line one public event
// of the protocol's shape, seqs rising, all of one session.
func runJSON(t *testing.T, out string) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e protocol.Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("a line that is not an event: %q: %v", line, err)
		}
		if e.Visibility != protocol.Public || e.Type == "" || e.Session == "" {
			t.Fatalf("not a public event: %q", line)
		}
		if n := len(evs); n > 0 && (e.Seq <= evs[n-1].Seq || e.Session != evs[n-1].Session) {
			t.Fatalf("event %d (%s) after %d of %s", e.Seq, e.Session, evs[n-1].Seq, evs[n-1].Session)
		}
		evs = append(evs, e)
	}
	return evs
}

func payloadOf(t *testing.T, evs []protocol.Event, typ string) map[string]any {
	t.Helper()
	for _, e := range evs {
		if e.Type == typ {
			var p map[string]any
			json.Unmarshal(e.Payload, &p)
			return p
		}
	}
	return nil
}

// sessionSaid is the session id `quire run` said on stderr.
func sessionSaid(t *testing.T, stderr string) string {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if id, ok := strings.CutPrefix(l, "session: "); ok {
			return id
		}
	}
	t.Fatalf("no session on stderr: %q", stderr)
	return ""
}

func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// `quire run` end to end with the fake Ollama, without an owner (it owns
// the folder itself) and through a running `quire serve` (its local
// channel): the events parse, each close reason has its exit status, the
// headless answers (-approve, -ask) decide, and -session continues.
func TestRunCommand(t *testing.T) {
	createCall := func(path string) ollamatest.Turn {
		return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"` + path + `","content":"# Plan\n"}`)}}}
	}
	list := ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "list_notes", Arguments: []byte(`{}`)}}}
	done := ollamatest.Turn{Content: []string{"Done", "."}}
	type check func(t *testing.T, notes string, evs []protocol.Event, stdout, stderr string)
	created := func(path string, want bool) check {
		return func(t *testing.T, notes string, _ []protocol.Event, _, _ string) {
			_, err := os.Stat(filepath.Join(notes, path))
			if (err == nil) != want {
				t.Errorf("%s exists: %v, want %v", path, err == nil, want)
			}
		}
	}
	refusedWith := func(reason string) check {
		return func(t *testing.T, _ string, evs []protocol.Event, _, _ string) {
			p := payloadOf(t, evs, "tool.refused")
			if p == nil || !strings.Contains(p["reason"].(string), reason) {
				t.Errorf("the refusal %v does not carry %q", p, reason)
			}
		}
	}
	bin := t.TempDir()
	yes := script(t, bin, "yes.sh", `in=$(cat); case "$in" in *'"descriptions":["Create plan-ask.md'*) echo yes;; *) printf 'no\nnot the question: %s' "$in";; esac`)
	no := script(t, bin, "no.sh", `cat >/dev/null; printf 'no\nnot today'`)
	broken := script(t, bin, "broken.sh", `exit 3`)
	mixed := script(t, bin, "mixed.sh", `case "$(cat)" in *plan-mixed-yes*) echo yes;; *) printf 'no\nnot that one';; esac`)
	cases := []struct {
		name      string
		args      []string
		turns     []ollamatest.Turn
		code      int
		ownerless bool // flags that only reach a kernel this command opens
		checks    []check
	}{
		{"completed", []string{"-json", "say hello"}, []ollamatest.Turn{{Content: []string{"Hel", "lo"}}}, 0, false, []check{
			func(t *testing.T, _ string, evs []protocol.Event, _, stderr string) {
				if evs[0].Type != "session.created" || evs[1].Type != "input.received" || evs[len(evs)-1].Type != "run.finished" || payloadOf(t, evs, "run.finished")["reason"] != "completed" {
					t.Errorf("the events run from %s to %s", evs[0].Type, evs[len(evs)-1].Type)
				}
				if evs[0].Session != sessionSaid(t, stderr) {
					t.Errorf("the session said is not the events'")
				}
			}}},
		// One Yes among Noes: the run did something, so it completed.
		{"ask says no to one of two", []string{"-json", "-ask", mixed, "make two plans"}, []ollamatest.Turn{createCall("plan-mixed-yes.md"), createCall("plan-mixed-no.md"), done}, 0, false,
			[]check{created("plan-mixed-yes.md", true), created("plan-mixed-no.md", false)}},
		{"text mode", []string{"say hi"}, []ollamatest.Turn{{Content: []string{"Hi", " there"}}}, 0, false, []check{
			func(t *testing.T, _ string, _ []protocol.Event, stdout, _ string) {
				if stdout != "Hi there\n" {
					t.Errorf("stdout %q, want the reply alone", stdout)
				}
			}}},
		{"approve never", []string{"-json", "make a plan"}, []ollamatest.Turn{createCall("plan-never.md"), done}, 3, false,
			[]check{created("plan-never.md", false), refusedWith("allow no writes in a headless run")}},
		{"approve reads", []string{"-json", "-approve", "reads", "make a plan"}, []ollamatest.Turn{createCall("plan-reads.md"), done}, 3, false,
			[]check{created("plan-reads.md", false), refusedWith("allow only reading in a headless run")}},
		{"approve all", []string{"-json", "-approve", "all", "make a plan"}, []ollamatest.Turn{createCall("plan-all.md"), done}, 0, false,
			[]check{created("plan-all.md", true)}},
		{"ask says yes", []string{"-json", "-ask", yes, "make a plan"}, []ollamatest.Turn{createCall("plan-ask.md"), done}, 0, false,
			[]check{created("plan-ask.md", true)}},
		{"ask says no", []string{"-json", "-ask", no, "make a plan"}, []ollamatest.Turn{createCall("plan-no.md"), done}, 3, false,
			[]check{created("plan-no.md", false), refusedWith("The user's reason: not today")}},
		{"ask fails", []string{"-json", "-ask", broken, "-approve", "all", "make a plan"}, []ollamatest.Turn{createCall("plan-broken.md"), done}, 3, false,
			[]check{created("plan-broken.md", false), refusedWith("it failed (exit status 3)")}},
		{"loop", []string{"-json", "list my notes"}, []ollamatest.Turn{list, list, list}, 4, false, nil},
		{"empty", []string{"-json", "say nothing"}, []ollamatest.Turn{{}, {}}, 6, false, nil},
		{"error", []string{"-json", "-model", "missing:1b", "say hello"}, nil, 1, true, []check{
			func(t *testing.T, _ string, evs []protocol.Event, _, _ string) {
				if p := payloadOf(t, evs, "run.finished"); p["reason"] != "error" {
					t.Errorf("the run finished %v", p)
				}
			}}},
		{"no task", []string{"-json"}, nil, 2, false, nil},
		{"a wrong -approve", []string{"-approve", "some", "hello"}, nil, 2, false, nil},
	}
	for _, owner := range []string{"none", "quire serve"} {
		t.Run(owner, func(t *testing.T) {
			fake := ollamatest.New(t)
			fake.AddModel(ollamatest.DefaultModel())
			data, notes := t.TempDir(), t.TempDir()
			cfg := config.Config{DataDir: data, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: config.DefaultNumCtx, NotesDir: notes}
			if owner != "none" {
				startServe(t, cfg)
			}
			flags := []string{"-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes}
			var first string
			for _, c := range cases {
				if c.ownerless && owner != "none" {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					fake.Script(c.turns...)
					var out, errOut bytes.Buffer
					code := within(t, "quire run", func() int { return run(append(append([]string{"run"}, flags...), c.args...), &out, &errOut) })
					if code != c.code {
						t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.code, out.String(), errOut.String())
					}
					if n := fake.Pending(); n != 0 {
						t.Fatalf("%d scripted replies were not asked for", n)
					}
					var evs []protocol.Event
					if c.code != 2 && strings.Contains(strings.Join(c.args, " "), "-json") {
						evs = runJSON(t, out.String())
					}
					for _, ch := range c.checks {
						ch(t, notes, evs, out.String(), errOut.String())
					}
					if first == "" && c.code == 0 {
						first = sessionSaid(t, errOut.String())
					}
				})
			}
			// -session continues a conversation: the new run's events follow
			// the old ones' seqs, and the model is sent the first exchange.
			fake.Script(ollamatest.Turn{Content: []string{"again"}})
			var out, errOut bytes.Buffer
			if code := run(append(append([]string{"run"}, flags...), "-json", "-session", first, "once more"), &out, &errOut); code != 0 {
				t.Fatalf("-session: exit %d: %s", code, errOut.String())
			}
			evs := runJSON(t, out.String())
			if evs[0].Session != first || evs[0].Seq == 0 || sessionSaid(t, errOut.String()) != first {
				t.Fatalf("the continued run starts at %s %d", evs[0].Session, evs[0].Seq)
			}
			reqs := fake.Requests()
			if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), "say hello") || !strings.Contains(string(last.Body), "once more") {
				t.Errorf("the continued run's request lacks the conversation: %s", last.Body)
			}
			errOut.Reset()
			if code := run(append(append([]string{"run"}, flags...), "-session", "nope", "hello"), io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), `there is no conversation "nope"`) {
				t.Errorf("an unknown -session: exit %d, %q", code, errOut.String())
			}
		})
	}
}

// Piped, `quire run`'s reply (stdout) and its tool lines (stderr) often
// share one pipe: a tool line after text that left its line open starts
// on a line of its own, and so does the next step's text.
func TestRunCommandPipedKeepsLineBreaks(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"Let me look at inbox first."}, ToolCalls: []ollamatest.ToolCall{{Name: "list_notes", Arguments: []byte(`{}`)}}},
		ollamatest.Turn{Content: []string{"Done", "."}})
	var both bytes.Buffer
	args := []string{"run", "-data-dir", t.TempDir(), "-ollama-host", fake.URL(), "-notes-dir", t.TempDir(), "look first"}
	if code := within(t, "quire run", func() int { return run(args, &both, &both) }); code != 0 {
		t.Fatalf("exit %d: %s", code, both.String())
	}
	if !strings.Contains(both.String(), "Let me look at inbox first.\n· Listed the notes\n") || !strings.HasSuffix(both.String(), "\nDone.\n") {
		t.Errorf("stdout and stderr together read %q", both.String())
	}
}

// Ctrl-C cancels a `quire run`: the run ends as cancelled and the exit
// status says so (130), through the owner's channel as without one.
func TestRunCommandCancelledBySIGINT(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data := t.TempDir()
	fake.Script(ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"run", "-json", "-data-dir", data, "-ollama-host", fake.URL(), "write forever"}, outW, io.Discard)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	var seen []protocol.Event
	for sc.Scan() {
		var e protocol.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, e)
		if e.Type == "assistant.delta" && len(seen) > 0 {
			// The command's signal handler is installed (it is streaming).
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			break
		}
	}
	go io.Copy(io.Discard, outR)
	select {
	case c := <-code:
		if c != 130 {
			t.Fatalf("exit %d after Ctrl-C, want 130", c)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("quire run did not end after Ctrl-C")
	}
}

// pane is `quire chat` in a tmux window of a tmux server of the test's
// own; the test waits on what the pane shows, woken by the pane's output.
type pane struct {
	t       *testing.T
	sock    string
	changed chan struct{}
	stderr  string
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (p *pane) screen() string { return p.tmux("capture-pane", "-p", "-t", "chat") }

// until waits for the screen to show want; every change of the pane wakes it.
func (p *pane) until(want string) {
	p.t.Helper()
	deadline := time.After(testkit.Patience)
	for {
		if s := p.screen(); strings.Contains(s, want) {
			return
		}
		select {
		case <-p.changed:
		case <-deadline:
			log, _ := os.ReadFile(p.stderr)
			p.t.Fatalf("the pane never showed %q; it shows:\n%s\nstderr:\n%s", want, p.screen(), log)
		}
	}
}

func (p *pane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "chat"}, keys...)...) }

// startChat runs this test binary as `quire chat` (TestMain) in tmux, its
// output piped to a FIFO the test reads, so a change of the screen is an
// event, not a moment to guess.
func startChat(t *testing.T, args ...string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed; `make deps-test` installs it")
	}
	dir := t.TempDir()
	p := &pane{t: t, sock: filepath.Join(dir, "tmux.sock"), changed: make(chan struct{}, 1), stderr: filepath.Join(dir, "stderr")}
	fifo := filepath.Join(dir, "pane")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	quoted := []string{"QUIRE_BENCH_AS_MAIN=1", shellQuote(self), "chat"}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	// The program starts once the pipe is in place, so none of its output
	// is missed; the server is told when it has exited.
	cmd := "tmux -S " + shellQuote(p.sock) + " wait-for go; env " + strings.Join(quoted, " ") + " 2>" + shellQuote(p.stderr) +
		"; tmux -S " + shellQuote(p.sock) + " wait-for -S exited"
	p.tmux("new-session", "-d", "-s", "chat", "-x", "100", "-y", "40", "sh", "-c", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	// The pane stays, with its last screen, once the program has exited.
	p.tmux("set-option", "-t", "chat", "remain-on-exit", "on")
	p.tmux("pipe-pane", "-O", "-t", "chat", "cat > "+shellQuote(fifo))
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			return
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case p.changed <- struct{}{}:
			default:
			}
		}
	}()
	p.tmux("wait-for", "-S", "go")
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// `quire chat` in a real terminal (tmux): a message typed is sent and its
// reply streams in; a permission question is shown whole and answered with
// y, and the write runs; Ctrl-C stops a reply that goes on, and a second
// Ctrl-C quits.
func TestChatInTmux(t *testing.T) {
	for _, owner := range []string{"none", "quire serve"} {
		t.Run(owner, func(t *testing.T) { chatInTmux(t, owner != "none") })
	}
}

// chatInTmux is TestChatInTmux with the folder owned by the chat itself,
// or by a running `quire serve`, whose page is then never asked.
func chatInTmux(t *testing.T, serve bool) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data, notes := t.TempDir(), t.TempDir()
	fake.Script(
		ollamatest.Turn{Content: []string{"Hello", " from", " Quire"}},
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"plan.md","content":"# Plan\nwater the tomatoes\nthe very last line"}`)}}},
		ollamatest.Turn{Content: []string{"I made plan.md."}},
		ollamatest.Turn{Content: []string{"Thinking", " it over"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}},
	)
	var owner *socketClient
	if serve {
		startServe(t, config.Config{DataDir: data, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: config.DefaultNumCtx, NotesDir: notes})
		owner = dialOwner(t, data)
	}
	p := startChat(t, "-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes)
	p.until("/help for commands.")

	p.keys("hi there", "Enter")
	p.until("quire › Hello from Quire")

	p.keys("make a plan", "Enter")
	p.until("Allow? [y/n]")
	for _, line := range []string{"Create plan.md", "water the tomatoes", "the very last line"} {
		if s := p.screen(); !strings.Contains(s, line) {
			t.Fatalf("the question lacks %q:\n%s", line, s)
		}
	}
	if owner != nil {
		// Asked in the terminal, and only there: the page's list is empty.
		var open []protocol.Question
		owner.call(http.MethodGet, "/api/questions", nil, &open)
		if len(open) != 0 {
			t.Fatalf("the owner's page is asked too: %+v", open)
		}
	}
	p.keys("y")
	p.until("quire › I made plan.md.")
	if b, err := os.ReadFile(filepath.Join(notes, "plan.md")); err != nil || !bytes.Contains(b, []byte("the very last line")) {
		t.Fatalf("the allowed write: %q %v", b, err)
	}

	p.keys("think", "Enter")
	p.until("quire › Thinking")
	p.keys("C-c")
	p.until("(the reply ended: cancelled")
	p.keys("C-c")
	exited := make(chan error, 1)
	go func() { exited <- exec.Command("tmux", "-S", p.sock, "wait-for", "exited").Run() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("quire chat did not quit on the second Ctrl-C:\n%s", p.screen())
	}
}

// `quire chat` with no terminal reads plain lines: a message, the answer
// to its question, /new, /sessions, /switch back to the first (its log is
// shown again), then the end of the input, which quits.
func TestChatInLineMode(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data, notes := t.TempDir(), t.TempDir()
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"plan.md","content":"# Plan\n"}`)}}},
		ollamatest.Turn{Content: []string{"I made ", "plan.md."}},
	)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The answer is typed once the question is shown: the pipe is written
	// only after stdout has said "Allow?".
	cmd := exec.Command(self, "chat", "-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes)
	cmd.Env = append(os.Environ(), "QUIRE_BENCH_AS_MAIN=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A chat that never asks or never quits is ended, so the reads below end.
	bound := time.AfterFunc(testkit.Patience, func() { cmd.Process.Kill() })
	defer bound.Stop()
	var said bytes.Buffer
	buf := make([]byte, 4096)
	// until reads the output until it holds want n times.
	until := func(want string, n int) {
		t.Helper()
		for strings.Count(said.String(), want) < n {
			k, err := out.Read(buf)
			said.Write(buf[:k])
			if err != nil {
				t.Fatalf("the output ended before %q: %q (%v)", want, said.String(), err)
			}
		}
	}
	until("/help for commands.", 1)
	first, _, _ := strings.Cut(said.String(), "\n")
	id := first[strings.LastIndex(first, "(")+1 : strings.LastIndex(first, ")")]
	in.Write([]byte("make a plan\n"))
	until("Allow? [y/n]", 1)
	in.Write([]byte("y\n"))
	until("quire › I made plan.md.", 1)
	// /undo reverts that change directly (no model is asked: the script
	// has no turn left), after a y/n showing what it reverses.
	if _, err := os.Stat(filepath.Join(notes, "plan.md")); err != nil {
		t.Fatalf("the allowed write did not run: %v", err)
	}
	asked := len(fake.Requests())
	in.Write([]byte("/undo\n"))
	until("Undo it? [y/n]", 1)
	if !strings.Contains(said.String(), "? Undo Quire's last change in this conversation:") || !strings.Contains(said.String(), "plan.md") {
		t.Fatalf("the undo question lacks the change:\n%s", said.String())
	}
	in.Write([]byte("y\n"))
	until("Undone: 1 change reverted", 1)
	if _, err := os.Stat(filepath.Join(notes, "plan.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after /undo plan.md is still there: %v", err)
	}
	if n := len(fake.Requests()); n != asked {
		t.Errorf("/undo asked the model (%d requests, was %d)", n, asked)
	}
	in.Write([]byte("/undo\n"))
	until("Nothing to undo", 1)
	// A new conversation, the list of both, and back to the first, whose
	// log is shown again.
	in.Write([]byte("/new\n"))
	until("/help for commands.", 2)
	in.Write([]byte("/sessions\n"))
	until("Conversations (/switch ID opens one):", 1)
	in.Write([]byte("/switch " + id + "\n"))
	until("quire › I made plan.md.", 2)
	in.Close()
	rest, _ := io.ReadAll(out)
	said.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("quire chat: %v\n%s", err, said.String())
	}
	for _, want := range []string{"you › make a plan", "  │ + # Plan", "  answered yes", "  " + id + "  "} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, said.String())
		}
	}
	if n := strings.Count(said.String(), "Terminal chat ("); n != 3 {
		t.Errorf("%d conversations opened, want 3 (the first, /new, /switch):\n%s", n, said.String())
	}
}

// A piped `quire chat` whose input ends while a question is open answers
// it no, says so, and exits once the reply has ended (it waited on the
// question until killed): nothing is written.
func TestChatInLineModeAnswersNoAtTheEndOfInput(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data, notes := t.TempDir(), t.TempDir()
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"plan.md","content":"# Plan\n"}`)}}},
		ollamatest.Turn{Content: []string{"I did not make it."}},
	)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "chat", "-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes)
	cmd.Env = append(os.Environ(), "QUIRE_BENCH_AS_MAIN=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bound := time.AfterFunc(testkit.Patience, func() { cmd.Process.Kill() })
	defer bound.Stop()
	var said bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(said.String(), "/help for commands.") {
		k, err := out.Read(buf)
		said.Write(buf[:k])
		if err != nil {
			t.Fatalf("the output ended before the conversation opened: %q (%v)", said.String(), err)
		}
		if strings.Contains(said.String(), "/help for commands.") {
			in.Write([]byte("make a plan\n"))
		}
	}
	for !strings.Contains(said.String(), "Allow? [y/n]") {
		k, err := out.Read(buf)
		said.Write(buf[:k])
		if err != nil {
			t.Fatalf("the output ended before the question: %q (%v)", said.String(), err)
		}
	}
	in.Close()
	rest, _ := io.ReadAll(out)
	said.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("quire chat: %v\n%s", err, said.String())
	}
	for _, want := range []string{"answered no: the input ended", "quire › I did not make it."} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, said.String())
		}
	}
	if _, err := os.Stat(filepath.Join(notes, "plan.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan.md was written without a yes: %v", err)
	}
}

// While `quire index` (or another terminal) owns the folder, `quire run`
// and `quire chat` cannot go through it: they say who holds it and what to
// do, and touch nothing.
func TestTerminalHostsWhileTheFolderIsHeldWithoutAChannel(t *testing.T) {
	data := t.TempDir()
	lock, err := datadir.Acquire(data, datadir.Holder{PID: os.Getpid(), Kind: datadir.Index, Since: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	for _, args := range [][]string{{"run", "hello"}, {"chat"}} {
		var errOut bytes.Buffer
		code := within(t, "quire "+args[0], func() int {
			return run(append(args, "-data-dir", data, "-ollama-host", "http://127.0.0.1:1"), io.Discard, &errOut)
		})
		if code != 1 || !strings.Contains(errOut.String(), "`quire index` (process") || !strings.Contains(errOut.String(), "run this again when it has finished") {
			t.Errorf("quire %s: exit %d, said %q", args[0], code, errOut.String())
		}
	}
	if _, err := os.Stat(filepath.Join(data, "quire.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused terminal made the database: %v", err)
	}
}

// `quire export` reads while another process owns the folder, as replay
// does: Markdown to standard output, the public events as JSON lines to a
// file — the very lines `replay -json -internal=false` prints.
func TestExportCommand(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	defer s.Close()
	sess := tripPlans(t, s.Kernel())

	var out, errOut bytes.Buffer
	if code := run([]string{"export", sess.ID, "-data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("export: %d %s", code, errOut.String())
	}
	if want := "# Trip plans\n"; !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "## You\n\npack list\n") ||
		!strings.Contains(out.String(), "## Quire\n\nYou said: pack list\n") {
		t.Fatalf("export's Markdown:\n%s", out.String())
	}
	file := filepath.Join(t.TempDir(), "trip.jsonl")
	errOut.Reset()
	if code := run([]string{"export", "-format", "jsonl", "-o", file, sess.ID, "-data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("export -format jsonl: %d %s", code, errOut.String())
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var replay bytes.Buffer
	if code := run([]string{"replay", sess.ID, "-json", "-internal=false", "-data-dir", dir}, &replay, &errOut); code != 0 {
		t.Fatalf("replay -json: %d %s", code, errOut.String())
	}
	if !bytes.Equal(got, replay.Bytes()) || len(got) == 0 {
		t.Fatalf("export's JSON lines differ from replay -json's:\n%s\n---\n%s", got, replay.String())
	}
	for _, bad := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"export", "-data-dir", dir}, 2, "which session"},
		{[]string{"export", sess.ID, "-format", "pdf", "-data-dir", dir}, 2, "md or jsonl"},
		{[]string{"export", "nope", "-data-dir", dir}, 1, "no such session"},
		{[]string{"export", sess.ID, "-o", filepath.Join(dir, "missing", "x.md"), "-data-dir", dir}, 1, "could not write"},
	} {
		errOut.Reset()
		if code := run(bad.args, &out, &errOut); code != bad.code || !strings.Contains(errOut.String(), bad.says) {
			t.Errorf("%v: exit %d %q, want %d saying %q", bad.args, code, errOut.String(), bad.code, bad.says)
		}
	}
}

// BenchmarkServeStart is `quire serve`'s start, end to end, with nothing
// changed since a clean end (issue 30: ≤ 1 s and ≤ 1.5× the same start on
// an empty data folder at 200k passages). Each iteration runs this test
// binary as `quire serve -addr 127.0.0.1:0` (TestMain), measures from the
// process's start to its "Quire is serving on" line, reads the CPU it has
// used by then (/proc/PID/stat), and ends it with an interrupt, so it
// closes cleanly as a user's Ctrl-C does. vs-empty is the ratio of the
// medians (p50-ms): on a shared machine the mean follows the load. "empty" is the floor: a data
// folder whose database a first start made; "passages=N" a folder whose
// document index holds the SciFact abstracts (-scifact) written -serve.copies
// times over (each copy's sentences rotated), about 7,600 passages a copy:
//
//	go test -run '^$' -bench ServeStart -benchtime 10x -timeout 60m \
//	  -scifact ../shared/data/scifact -serve.copies 27 -serve.cache /tmp/serve200k .
//
// The folder is built once by `quire index` and kept in -serve.cache.
func BenchmarkServeStart(b *testing.B) {
	if *benchSciFact == "" {
		b.Skip("no -scifact data folder given")
	}
	base := *serveCache
	if base == "" {
		base = b.TempDir()
	}
	empty := filepath.Join(b.TempDir(), "empty")
	full := serveData(b, base, *serveCopies)
	notes := b.TempDir()
	var floor time.Duration
	for _, arm := range []struct{ name, data string }{
		{"empty", empty},
		{fmt.Sprintf("passages=%s", passagesOf(b, full)), full},
	} {
		b.Run(arm.name, func(b *testing.B) {
			serveOnce(b, arm.data, notes) // the empty folder's database is made as a first start makes it
			checkedOnce(b, arm.data)
			var cpu time.Duration
			ds := make([]time.Duration, 0, b.N)
			for b.Loop() {
				w, c := serveOnce(b, arm.data, notes)
				ds, cpu = append(ds, w), cpu+c
			}
			reportQuantiles(b, ds) // sorts ds
			per := ds[len(ds)/2]
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
			if floor == 0 {
				floor = per
			} else {
				b.ReportMetric(float64(per)/float64(floor), "vs-empty")
			}
		})
	}
}

var (
	serveCopies = flag.Int("serve.copies", 27, "BenchmarkServeStart: copies of the SciFact abstracts in the document index (27: about 200k passages)")
	serveCache  = flag.String("serve.cache", "", "BenchmarkServeStart: folder to keep the built data folder in between runs; empty = a temporary one")
)

// checkedOnce records a passed whole-file check in data's database, as a
// user's folder has one from the last week: without it each start would
// check the whole file in the background (assembly/filecheck.go).
func checkedOnce(b *testing.B, data string) {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(data, "quire.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if at, err := st.LastFullCheck(ctx); err == nil && time.Since(at) < 24*time.Hour {
		return
	}
	if err := st.Check(ctx, true); err != nil {
		b.Fatal(err)
	}
}

// serveOnce starts `quire serve` on data and returns the time and CPU it
// took to listen; it then interrupts it and waits for its clean end.
func serveOnce(b *testing.B, data, notes string) (wall, cpu time.Duration) {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, "serve", "-addr", "127.0.0.1:0", "-data-dir", data, "-notes-dir", notes, "-ollama-host", "http://127.0.0.1:1")
	cmd.Env = append(os.Environ(), "QUIRE_BENCH_AS_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			cmd.Wait()
			b.Fatalf("quire serve never listened: %v\n%s", err, stderr.String())
		}
		if strings.HasPrefix(line, "Quire is serving on") {
			break
		}
	}
	wall = time.Since(start)
	cpu = childCPU(b, cmd.Process.Pid)
	cmd.Process.Signal(os.Interrupt)
	go func() { _, _ = r.WriteTo(devNull{}) }()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("quire serve: %v\n%s", err, stderr.String())
	}
	return wall, cpu
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// childCPU is the user and system time process pid has used so far.
func childCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's name (which may hold spaces) in parentheses.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / hz
}

// serveData is a data folder under base whose document index holds copies
// of the SciFact abstracts, built by `quire index` once and kept.
func serveData(b *testing.B, base string, copies int) string {
	b.Helper()
	data := filepath.Join(base, "data")
	if _, err := os.Stat(filepath.Join(data, "quire.db")); err == nil {
		return data
	}
	corpus := filepath.Join(base, "corpus")
	old := time.Now().Add(-time.Hour) // older than the racy window: the pass's fingerprint is kept
	type doc struct{ ID, Title, Text string }
	var docs []doc
	eachJSONLine(b, filepath.Join(*benchSciFact, "docs.jsonl"), func(line []byte) {
		var d doc
		if err := json.Unmarshal(line, &d); err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d)
	})
	for c := range copies {
		dir := filepath.Join(corpus, fmt.Sprintf("copy%02d", c))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for _, d := range docs {
			s := strings.SplitAfter(d.Text, ". ")
			r := c % max(1, len(s))
			text := "# " + d.Title + "\n\n" + strings.Join(append(append([]string{}, s[r:]...), s[:r]...), "") + "\n"
			p := filepath.Join(dir, d.ID+".md")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				b.Fatal(err)
			}
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"index", "-data-dir", data, "-ollama-host", "http://127.0.0.1:1", corpus}, &out, &errOut); code != 0 {
		b.Fatalf("index: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	return data
}

// passagesOf names the size of data's document index ("205k").
func passagesOf(b *testing.B, data string) string {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "quire.db")+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM rag_chunks`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}
