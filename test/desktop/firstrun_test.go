//go:build desktoptest

package desktop

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"quire/internal/ollamatest"
)

// TestDesktopFirstRunDownloadsAModel: a new user's Ollama runs with no
// model; the real window offers "Download qwen3:4b (2.5 GB)", a click (the
// pointer, through xdotool) starts the pull, its progress shows part way,
// the first screen gives way to the chat on its own, and a typed message
// gets its reply from the downloaded model.
func TestDesktopFirstRunDownloadsAModel(t *testing.T) {
	display := startXvfb(t)
	// Each line of the pull a little apart, so its progress shows in the
	// window between "pulling manifest" and "success".
	fake := ollamatest.New(t, ollamatest.WithDelay(200*time.Millisecond))
	fake.AddPullable(ollamatest.DefaultModel())
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL())
	t.Cleanup(func() {
		if t.Failed() {
			screenshot(t, display, "desktop-first-run-FAILED.png")
			b, _ := os.ReadFile(probe)
			t.Logf("the last view: %s", b)
		}
	})
	got := waitView(t, a, probe, "the download screen", func(v view) bool {
		return v.FirstRun != nil && v.FirstRun.State == "download" && v.FirstRun.Button != nil
	})
	screenshot(t, display, "desktop-first-run.png")
	win := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Quire$"))[0]
	geo := run(t, display, "xdotool", "getwindowgeometry", "--shell", win)
	wx, wy := shellInt(t, geo, "X"), shellInt(t, geo, "Y")
	b := got.FirstRun.Button
	run(t, display, "xdotool", "mousemove", "--sync", strconv.Itoa(wx+b.X), strconv.Itoa(wy+b.Y))
	run(t, display, "xdotool", "click", "1")
	partway := waitView(t, a, probe, "the download's progress part way", func(v view) bool {
		return v.FirstRun != nil && v.FirstRun.Percent > 0 && v.FirstRun.Percent < 100
	})
	if !strings.Contains(partway.FirstRun.Status, "Downloading qwen3:4b: ") || !strings.Contains(partway.FirstRun.Status, " of ") {
		t.Fatalf("the status line while downloading: %q", partway.FirstRun.Status)
	}
	screenshot(t, display, "desktop-first-run-progress.png")
	waitView(t, a, probe, "the chat once the model is there", func(v view) bool { return v.FirstRun == nil && v.Banner == nil })

	const typed = "hello after the download"
	send(t, display, typed)
	done := waitView(t, a, probe, "the reply from the downloaded model", func(v view) bool {
		return v.has("user", typed) && v.has("assistant", "You said: "+typed) && !v.Streaming
	})
	if !strings.HasSuffix(done.Context, " of 8,192 tokens") {
		t.Errorf("the context meter: %q", done.Context)
	}
	screenshot(t, display, "desktop-first-run-chat.png")
}
