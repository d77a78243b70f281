//go:build desktoptest

// Package desktop drives the real Quire window under Xvfb: the built binary,
// the real webview, keystrokes from xdotool, a fake Ollama server speaking
// the real wire protocol. `make test` builds the app and runs it with
// QUIRE_APP_BIN set.
package desktop

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"quire/test/ollamatest"
)

// view is the snapshot the frontend reports through the test probe.
type view struct {
	ActiveSession *string  `json:"activeSession"`
	SessionTitles []string `json:"sessionTitles"`
	Messages      []struct {
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"messages"`
	Banner    *string `json:"banner"`
	Streaming bool    `json:"streaming"`
	// The documents parts (frontend/src/lib/snapshot.ts), when on screen.
	Indexing *struct {
		Phase string `json:"phase"`
		Done  int    `json:"done"`
		Total int    `json:"total"`
		Label string `json:"label"`
	} `json:"indexing"`
	Citations      []string `json:"citations"`
	CitationPoints []struct {
		X int `json:"x"`
		Y int `json:"y"`
	} `json:"citationPoints"`
	Viewer *struct {
		Name        string `json:"name"`
		Start       int    `json:"start"`
		End         int    `json:"end"`
		Highlighted string `json:"highlighted"`
	} `json:"viewer"`
	// The first screen (FirstRun.svelte) and the context meter, when shown.
	FirstRun *struct {
		State   string `json:"state"`
		Percent int    `json:"percent"`
		Status  string `json:"status"`
	} `json:"firstRun"`
	Context string `json:"context"`
	// The models and Settings screens, when open.
	Models *struct {
		Installed []string `json:"installed"`
		Pulls     []struct {
			Name    string `json:"name"`
			State   string `json:"state"`
			Percent *int   `json:"percent"`
		} `json:"pulls"`
	} `json:"models"`
	Settings *struct {
		Saved bool   `json:"saved"`
		Model string `json:"model"`
	} `json:"settings"`
	// The inspector, when open (snapshot.ts readInspector).
	Inspector *struct {
		Calls   int      `json:"calls"`
		Origins []string `json:"origins"`
		Copied  string   `json:"copied"`
	} `json:"inspector"`
	// The batch in the "Organise a folder" drawer, when shown (snapshot.ts readBatch).
	Batch *batchView `json:"batch"`
	// The Standing tasks panel and its button's dot (snapshot.ts readStanding).
	Standing *standingView `json:"standing"`
	// Where the controls a test clicks are (snapshot.ts POINT_IDS).
	Points map[string]point `json:"points"`
}

type point struct{ X, Y int }

func (v view) has(role, text string) bool {
	for _, m := range v.Messages {
		if m.Role == role && strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}

func artifacts(t testing.TB) string {
	dir := os.Getenv("QUIRE_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startXvfb starts a virtual display and returns its DISPLAY value.
func startXvfb(t testing.TB) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb (is the xvfb package installed?): %v", err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb did not report its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

type app struct {
	cmd  *exec.Cmd
	done chan error
}

func startApp(t testing.TB, display, dataDir, probe, ollamaURL string, env ...string) *app {
	t.Helper()
	bin := os.Getenv("QUIRE_APP_BIN")
	if bin == "" {
		t.Fatal("QUIRE_APP_BIN is not set: run this test through `make test`, which builds the app first")
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"DISPLAY="+display,
		"QUIRE_DATA_DIR="+dataDir,
		"QUIRE_TEST_PROBE="+probe,
		"OLLAMA_HOST="+ollamaURL,
		"WEBKIT_DISABLE_COMPOSITING_MODE=1",
		"GDK_BACKEND=x11",
		"NO_AT_BRIDGE=1",
	)
	cmd.Env = append(cmd.Env, env...)
	logFile, err := os.Create(filepath.Join(artifacts(t), "desktop-app.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &app{cmd: cmd, done: make(chan error, 1)}
	go func() { a.done <- cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() { a.stop(t) })
	return a
}

// stop asks the app to quit (SIGTERM) and waits for it to exit.
func (a *app) stop(t testing.TB) {
	if a.cmd.ProcessState != nil {
		return
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(15 * time.Second):
		a.cmd.Process.Kill()
		<-a.done
		t.Errorf("the app did not quit within 15s of SIGTERM")
	}
}

// waitView polls the probe file until ok accepts the snapshot.
func waitView(t testing.TB, a *app, probe, what string, ok func(view) bool) view {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last view
	for time.Now().Before(deadline) {
		select {
		case err := <-a.done:
			a.done <- err
			t.Fatalf("the app exited while waiting for %s: %v (see test-artifacts/desktop-app.log)", what, err)
		default:
		}
		// A fresh view each time: decoding into the last one would keep a
		// part (the first screen, the viewer) the page no longer shows.
		var v view
		b, err := os.ReadFile(probe)
		if err == nil && json.Unmarshal(b, &v) == nil {
			if last = v; ok(v) {
				return v
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last view: %+v", what, last)
	return last
}

func run(t testing.TB, display string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// send types text into the window's composer and sends it, as the user
// does; it returns the window's id.
func send(t *testing.T, display, text string) string {
	t.Helper()
	win := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Quire$"))[0]
	run(t, display, "xdotool", "windowfocus", "--sync", win)
	run(t, display, "xdotool", "type", "--delay", "15", "--window", win, text)
	run(t, display, "xdotool", "key", "--window", win, "Return")
	return win
}

func screenshot(t testing.TB, display, name string) {
	t.Helper()
	path := filepath.Join(artifacts(t), name)
	run(t, display, "import", "-window", "root", path)
	t.Logf("screenshot: %s", path)
}

// TestDesktopChatAndRestart types a message into the real window, waits for
// the streamed reply to be rendered, then restarts the app on the same data
// directory and checks the conversation is shown again, rebuilt from the log.
func TestDesktopChatAndRestart(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithDelay(30*time.Millisecond))
	fake.AddModel(ollamatest.DefaultModel())
	dataDir := t.TempDir()
	probe := filepath.Join(t.TempDir(), "view.json")
	const typed = "hello from xdotool"
	const reply = "You said: " + typed

	first := startApp(t, display, dataDir, probe, fake.URL())
	waitView(t, first, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	win := run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Quire$")
	win = strings.Fields(win)[0]
	run(t, display, "xdotool", "windowfocus", "--sync", win)
	run(t, display, "xdotool", "type", "--delay", "15", "--window", win, typed)
	run(t, display, "xdotool", "key", "--window", win, "Return")
	got := waitView(t, first, probe, "the streamed reply", func(v view) bool {
		return v.has("user", typed) && v.has("assistant", reply) && !v.Streaming
	})
	screenshot(t, display, "desktop-chat.png")
	if len(got.SessionTitles) != 1 {
		t.Fatalf("sessions after the first message: %v", got.SessionTitles)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("the fake Ollama got %d chat requests, want 1", n)
	}
	first.stop(t)

	if err := os.Remove(probe); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	second := startApp(t, display, dataDir, probe, fake.URL())
	restored := waitView(t, second, probe, "the conversation after restart", func(v view) bool {
		return v.has("user", typed) && v.has("assistant", reply)
	})
	screenshot(t, display, "desktop-restart.png")
	if len(restored.SessionTitles) != 1 {
		t.Fatalf("sessions after restart: %v", restored.SessionTitles)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("restarting sent %d chat requests, want 1 (nothing is re-run)", n)
	}
	fmt.Fprintln(os.Stderr, "desktop: chat and restart verified")
}

// TestDesktopMoveNeedsTheUsersYes: the model asks to move a note; the window
// shows a native Yes/No dialog naming the move; xdotool answers Yes; the
// note has moved. Before the answer, nothing on disk changed.
func TestDesktopMoveNeedsTheUsersYes(t *testing.T) {
	display := startXvfb(t)
	var calls atomic.Int32
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond), ollamatest.WithReplies(func(last string) (ollamatest.Turn, bool) {
		if !strings.Contains(last, "file the note") {
			return ollamatest.Turn{}, false
		}
		if calls.Add(1) == 1 {
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "m1", Name: "move_note",
				Arguments: []byte(`{"from":"inbox/idea.md","to":"projects/idea.md","requestId":"r1"}`)}}}, true
		}
		return ollamatest.Turn{Content: []string{"Moved ", "it."}}, true
	}))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(notesDir, "inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notesDir, "inbox", "idea.md"), []byte("# Idea\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL(), "QUIRE_NOTES_DIR="+notesDir)
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	win := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Quire$"))[0]
	run(t, display, "xdotool", "windowfocus", "--sync", win)
	run(t, display, "xdotool", "type", "--delay", "15", "--window", win, "please file the note")
	run(t, display, "xdotool", "key", "--window", win, "Return")

	dialog := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "Allow Quire to run move_note"))[0]
	screenshot(t, display, "desktop-permission.png")
	if _, err := os.Stat(filepath.Join(notesDir, "inbox", "idea.md")); err != nil {
		t.Fatal("the note moved before the user said yes")
	}
	run(t, display, "xdotool", "windowfocus", "--sync", dialog)
	run(t, display, "xdotool", "key", "--window", dialog, "alt+y")
	waitView(t, a, probe, "the reply after the move", func(v view) bool { return v.has("assistant", "Moved it.") && !v.Streaming })
	screenshot(t, display, "desktop-moved.png")
	if _, err := os.Stat(filepath.Join(notesDir, "projects", "idea.md")); err != nil {
		t.Fatalf("the note is not at its new place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(notesDir, "inbox", "idea.md")); err == nil {
		t.Fatal("the note is still at its old place")
	}
}

// memoryItems is what the memory panel shows, from the probe (nil when the
// panel is closed).
type memoryView struct {
	Memory *[]struct {
		Kind   string `json:"kind"`
		Status string `json:"status"`
		Text   string `json:"text"`
	} `json:"memory"`
}

func readMemoryView(t *testing.T, probe string) memoryView {
	t.Helper()
	var m memoryView
	b, err := os.ReadFile(probe)
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// waitMemory polls the probe until the memory panel shows what ok wants.
func waitMemory(t *testing.T, a *app, probe, what string, ok func(m memoryView) bool) {
	t.Helper()
	waitView(t, a, probe, what, func(view) bool { return ok(readMemoryView(t, probe)) })
}

// TestDesktopMemoryPanelSeeEditForget: the model remembers a preference
// (the native dialog asks first, as every memory write does by default, and
// the user says yes); in the real window the user opens the memory panel (a click on the
// sidebar's Memory button), sees the item, edits it and forgets it with the
// keyboard, and each step shows what Quire now holds.
func TestDesktopMemoryPanelSeeEditForget(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond))
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "remember", Arguments: []byte(`{"kind":"preference","text":"Tags are lower-case."}`)}}},
		ollamatest.Turn{Content: []string{"I will remember that."}},
	)
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL())
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	win := send(t, display, "I like lower-case tags")
	dialog := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "Allow Quire to run remember"))[0]
	run(t, display, "xdotool", "windowfocus", "--sync", dialog)
	run(t, display, "xdotool", "key", "--window", dialog, "alt+y")
	waitView(t, a, probe, "the reply", func(v view) bool { return v.has("assistant", "I will remember that.") && !v.Streaming })
	// The dialog had the keyboard; the keys below are for the window.
	run(t, display, "xdotool", "windowfocus", "--sync", win)

	// The sidebar's Memory button, where the page says it is.
	w := findWindow(t, display, a, probe)
	openPanel := func() { w.click("memory-open") }
	openPanel()
	waitMemory(t, a, probe, "the panel with the remembered item", func(m memoryView) bool {
		return m.Memory != nil && len(*m.Memory) == 1 && (*m.Memory)[0].Text == "Tags are lower-case." && (*m.Memory)[0].Kind == "preference"
	})
	screenshot(t, display, "desktop-memory.png")

	// The panel focuses its close button; Tab goes through the two settings
	// and the item's link to its Edit button.
	keys := func(k ...string) {
		for _, key := range k {
			run(t, display, "xdotool", "key", "--window", win, key)
			time.Sleep(80 * time.Millisecond)
		}
	}
	keys("Tab", "Tab", "Tab", "Tab", "Return")
	time.Sleep(300 * time.Millisecond)
	keys("ctrl+a")
	run(t, display, "xdotool", "type", "--delay", "15", "--window", win, "Tags are short.")
	keys("Return")
	waitMemory(t, a, probe, "the edited item", func(m memoryView) bool {
		return m.Memory != nil && len(*m.Memory) == 1 && (*m.Memory)[0].Text == "Tags are short."
	})

	// Escape closes the panel; opened again, Tab reaches Forget.
	keys("Escape")
	waitMemory(t, a, probe, "the panel to close", func(m memoryView) bool { return m.Memory == nil })
	openPanel()
	waitMemory(t, a, probe, "the panel again", func(m memoryView) bool { return m.Memory != nil && len(*m.Memory) == 1 })
	keys("Tab", "Tab", "Tab", "Tab", "Tab", "Return")
	waitMemory(t, a, probe, "the item forgotten", func(m memoryView) bool { return m.Memory != nil && len(*m.Memory) == 0 })
	screenshot(t, display, "desktop-memory-forgotten.png")
}
