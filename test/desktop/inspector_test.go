//go:build desktoptest

package desktop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/test/ollamatest"
)

// TestDesktopInspectorShowsWhatTheModelSaw: in the real window, after a
// reply, "What the model saw" (clicked with the pointer) opens the
// inspector on the reply's call with the user's message named by its
// event; Copy request as JSON copies it; Esc closes it — after a restart
// too, when the window knows nothing but the log.
func TestDesktopInspectorShowsWhatTheModelSaw(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithDelay(30*time.Millisecond))
	fake.AddModel(ollamatest.DefaultModel())
	dataDir := t.TempDir()
	probe := filepath.Join(t.TempDir(), "view.json")
	failedShot(t, display, probe, "desktop-inspector-FAILED.png")
	const typed = "what did you see"

	inspect := func(a *app, shot string) {
		t.Helper()
		w := findWindow(t, display, a, probe)
		w.click("inspect")
		v := waitView(t, a, probe, "the inspector on the reply's call", func(v view) bool {
			return v.Inspector != nil && v.Inspector.Calls == 1 && len(v.Inspector.Origins) > 0
		})
		if !slices.ContainsFunc(v.Inspector.Origins, func(o string) bool { return strings.HasPrefix(o, "the user's message, from event #") }) {
			t.Fatalf("the inspector does not name the user's message by its event: %q", v.Inspector.Origins)
		}
		w.click("inspector-copy")
		v = waitView(t, a, probe, "the copy", func(v view) bool {
			return v.Inspector != nil && (strings.HasPrefix(v.Inspector.Copied, "Copied") || strings.HasPrefix(v.Inspector.Copied, "Could not") || strings.HasPrefix(v.Inspector.Copied, "The clipboard"))
		})
		if !strings.HasPrefix(v.Inspector.Copied, "Copied") {
			t.Errorf("Copy request as JSON in the window: %q", v.Inspector.Copied)
		}
		screenshot(t, display, shot)
		w.keys("Escape")
		waitView(t, a, probe, "Esc to close the inspector", func(v view) bool { return v.Inspector == nil })
	}

	first := startApp(t, display, dataDir, probe, fake.URL())
	waitView(t, first, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	send(t, display, typed)
	waitView(t, first, probe, "the reply", func(v view) bool { return v.has("assistant", "You said: "+typed) && !v.Streaming })
	inspect(first, "desktop-inspector.png")
	first.stop(t)

	if err := os.Remove(probe); err != nil {
		t.Fatal(err)
	}
	second := startApp(t, display, dataDir, probe, fake.URL())
	waitView(t, second, probe, "the conversation after a restart", func(v view) bool { return v.has("assistant", "You said: "+typed) })
	inspect(second, "desktop-inspector-restart.png")
	fmt.Fprintln(os.Stderr, "desktop: the inspector verified, before and after a restart")
}
