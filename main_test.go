package main

import (
	"bytes"
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
	"quire/internal/ollamatest"
	"quire/kernel/protocol"
)

func configFor(dataDir, ollamaURL string) config.Config {
	return config.Config{DataDir: dataDir, OllamaHost: ollamaURL, Model: "qwen3:4b", NumCtx: 4096}
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
	s, err := openServices(t.Context(), configFor(dir, fake.URL()), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := protocol.Run[protocol.Session](t.Context(), s.kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Trip plans"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "pack list"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		evs, _ := s.kernel().Events(t.Context(), sess.ID, 0)
		if len(evs) > 0 && evs[len(evs)-1].Type == "run.finished" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reply did not finish")
		}
	}
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
	s, err := openServices(t.Context(), configFor(dir, fake.URL()), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := protocol.Run[protocol.Session](t.Context(), s.kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "r"})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"first question", "second, with \"quotes\" and ünïcode", "third"} {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), s.kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
		waitFinishedRuns(t, s, sess.ID, i+1)
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
		want, err := canonicalJSON(got[n-1].Body)
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

func waitFinishedRuns(t *testing.T, s *services, session string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		evs, _ := s.kernel().Events(t.Context(), session, 0)
		count := 0
		for _, e := range evs {
			if e.Type == "run.finished" {
				count++
			}
		}
		if count >= n {
			return
		}
	}
	t.Fatalf("run %d did not finish", n)
}

// TestOpenPlanItemsExtendTheRunOnce: a plan with open items at the end of a
// run gets one reminder step, and no more.
func TestOpenPlanItemsExtendTheRunOnce(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "update_todos", Arguments: []byte(`{"items":[{"text":"file plan.md"}]}`)}}},
		ollamatest.Turn{Content: []string{"I made a plan."}},
		ollamatest.Turn{Content: []string{"Still to do."}},
	)
	dir := t.TempDir()
	s, err := openServices(t.Context(), configFor(dir, fake.URL()), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "p"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "organise"}); err != nil {
		t.Fatal(err)
	}
	waitFinishedRuns(t, s, sess.ID, 1)
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3 (plan, reply, one reminder step)", len(reqs))
	}
	last := reqs[2].Chat.Messages
	if m := last[len(last)-1]; m.Role != "user" || !strings.Contains(m.Content, "file plan.md") {
		t.Fatalf("the reminder step's last message: %+v", m)
	}
}

// TestNotesFolderIsRememberedAndGivesTheTools: choosing a notes folder turns
// the note tools on for later runs and is saved for the next start.
func TestNotesFolderIsRememberedAndGivesTheTools(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir, notesDir := t.TempDir(), t.TempDir()
	s, err := openServices(t.Context(), configFor(dir, fake.URL()), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetNotesDir(filepath.Join(notesDir, "missing")); err == nil {
		t.Fatal("a folder that does not exist was accepted")
	}
	if err := s.SetNotesDir(notesDir); err != nil {
		t.Fatal(err)
	}
	saved, err := config.ReadSettings(dir)
	if err != nil || saved.NotesDir != notesDir {
		t.Fatalf("settings %+v %v", saved, err)
	}
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "n"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "list"}); err != nil {
		t.Fatal(err)
	}
	waitFinishedRuns(t, s, sess.ID, 1)
	var names []string
	for _, tl := range fake.Requests()[0].Chat.Tools {
		names = append(names, tl.Function.Name)
	}
	for _, want := range []string{"list_notes", "move_note", "update_todos", "undo", "search_docs"} {
		if !slices.Contains(names, want) {
			t.Errorf("the model was not offered %s (tools: %v)", want, names)
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
