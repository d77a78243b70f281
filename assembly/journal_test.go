package assembly

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// TestAMoveAStopInterruptedIsPutBackAtStart: a relinking move a crash
// stopped half way (one note rewritten, the rename not made) left its
// journal in the data folder; the next start rolls it back before any tool
// runs, so every file is as before, the process log says so, and the
// conversation whose call made the move gets a note.recovered event.
func TestAMoveAStopInterruptedIsPutBackAtStart(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script( // the call the crash interrupted (here a read, so the first start changes nothing)
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "m1", Name: "read_note", Arguments: []byte(`{"path":"a.md"}`)}}},
		ollamatest.Turn{Content: []string{"Read."}},
	)
	dataDir, notesDir := t.TempDir(), t.TempDir()
	real, err := filepath.EvalSymlinks(notesDir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(notesDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "# A\n")
	write("x.md", "see [[a]]\n")
	write("y.md", "and [[a]]\n")
	var log bytes.Buffer
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 8192, NotesDir: notesDir}
	open := func() *Parts {
		p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.NewTextHandler(&log, nil)), Owner)
		if err != nil {
			t.Fatal(err)
		}
		p.SetAsker(func(context.Context, protocol.Question) (protocol.Answer, error) {
			return protocol.Answer{Allowed: true}, nil
		})
		return p
	}
	p := open()
	sess, _ := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "tidy"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), p.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "look"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, p.Kernel(), sess.ID, 1)
	p.Close()

	// What the crash left: x.md rewritten, y.md's new text staged, the journal.
	write("x.md", "see [[b]]\n")
	write(".quire-chg_stopped-1.tmp", "and [[b]]\n")
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	journal, _ := json.Marshal(map[string]any{"root": real, "pid": -1, "id": "chg_stopped", "call": "m1", "from": "a.md", "to": "b.md", "edits": []map[string]any{
		{"at": "x.md", "moved": "x.md", "before": "see [[a]]\n", "afterSha256": sum("see [[b]]\n"), "temp": ".quire-chg_stopped-0.tmp"},
		{"at": "y.md", "moved": "y.md", "before": "and [[a]]\n", "afterSha256": sum("and [[b]]\n"), "temp": ".quire-chg_stopped-1.tmp"},
	}})
	journals := filepath.Join(dataDir, JournalFolder)
	os.MkdirAll(journals, 0o700)
	if err := os.WriteFile(filepath.Join(journals, "move-chg_stopped.json"), journal, 0o600); err != nil {
		t.Fatal(err)
	}

	p = open()
	defer p.Close()
	for name, want := range map[string]string{"a.md": "# A\n", "x.md": "see [[a]]\n", "y.md": "and [[a]]\n"} {
		if got, _ := os.ReadFile(filepath.Join(notesDir, name)); string(got) != want {
			t.Errorf("%s after the start: %q, want %q", name, got, want)
		}
	}
	for _, gone := range []string{filepath.Join(notesDir, ".quire-chg_stopped-1.tmp"), filepath.Join(journals, "move-chg_stopped.json")} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s was left", gone)
		}
	}
	if !strings.Contains(log.String(), "rolled back") || !strings.Contains(log.String(), "chg_stopped") {
		t.Fatalf("the log does not say the move was rolled back:\n%s", log.String())
	}
	evs, err := p.Kernel().Events(t.Context(), sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, e := range evs {
		if e.Type == string(event.NoteRecovered) {
			var pl event.NoteRecoveredPayload
			json.Unmarshal(e.Payload, &pl)
			said = append(said, pl.Call+": "+pl.Text)
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "m1: ") || !strings.Contains(said[0], "rolled back") {
		t.Fatalf("the conversation was told %q", said)
	}
}

// TestARelinkingMoveInAConversation: the model renames a note another
// note links to; the question the user is asked shows the link it
// updates, the Changes list and a preview carry each note's diff, an undo
// is refused naming the linking note once it changed by hand, and, once
// it is back, the one undo gives every file back byte for byte.
func TestARelinkingMoveInAConversation(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "m1", Name: "move_note", Arguments: []byte(`{"from":"a.md","to":"archive/z.md"}`)}}},
		ollamatest.Turn{Content: []string{"Moved."}},
	)
	dataDir, notesDir := t.TempDir(), t.TempDir()
	files := map[string]string{"a.md": "# A\n", "b.md": "one\nsee [[a]]\nthree\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(notesDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 8192, NotesDir: notesDir}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var asked []string
	p.SetAsker(func(_ context.Context, q protocol.Question) (protocol.Answer, error) {
		asked = append(asked, q.Descriptions...)
		return protocol.Answer{Allowed: true}, nil
	})
	sess, _ := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "tidy"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), p.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "archive a"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, p.Kernel(), sess.ID, 1)
	if len(asked) != 1 || !strings.Contains(asked[0], "Move a.md → archive/z.md\nand updates 1 link in 1 note:") || !strings.Contains(asked[0], "+ see [[z]]") {
		t.Fatalf("the question: %q", asked)
	}
	b := filepath.Join(notesDir, "b.md")
	if got := read(t, b); got != "one\nsee [[z]]\nthree\n" {
		t.Fatalf("b.md after the move: %q", got)
	}
	n := p.Notes()
	list, err := n.Changes(t.Context())
	if err != nil || len(list.Changes) != 1 || len(list.Changes[0].Edits) != 1 || !strings.Contains(list.Changes[0].Edits[0].Diff, "+ see [[z]]") ||
		!strings.Contains(list.Changes[0].Diff, "and updates 1 link in 1 note") {
		t.Fatalf("the Changes list: %+v, %v", list, err)
	}
	pre, err := n.Preview(t.Context(), "move_note", []byte(`{"from":"archive/z.md","to":"y.md"}`))
	if err != nil || pre.Links != 1 || len(pre.Edits) != 1 || pre.Edits[0].Path != "b.md" || !strings.Contains(pre.Edits[0].Diff, "+ see [[y]]") {
		t.Fatalf("the preview of another move: %+v, %v", pre, err)
	}

	os.WriteFile(b, []byte("one\nsee [[z]]\nthree\nfour\n"), 0o644)
	out, err := n.Undo(t.Context(), list.Changes[0].ID)
	if err != nil || out.Refused == nil || !strings.Contains(out.Refused.Reason, "b.md") || len(out.Undone) != 0 {
		t.Fatalf("the undo after b.md changed: %+v, %v", out, err)
	}
	os.WriteFile(b, []byte("one\nsee [[z]]\nthree\n"), 0o644)
	if out, err := n.Undo(t.Context(), list.Changes[0].ID); err != nil || out.Refused != nil {
		t.Fatalf("the undo: %+v, %v", out, err)
	}
	entries, _ := os.ReadDir(notesDir)
	if len(entries) != len(files) {
		t.Fatalf("after the undo the folder holds %d entries, want %d", len(entries), len(files))
	}
	for name, text := range files {
		if got := read(t, filepath.Join(notesDir, name)); got != text {
			t.Fatalf("%s after the undo: %q", name, got)
		}
	}
}
