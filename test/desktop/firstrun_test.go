//go:build desktoptest

package desktop

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"quire/test/ollamatest"
)

// window is the real window under test: its id and where it is on the
// screen, to click the controls the probe places.
type window struct {
	t       testing.TB
	display string
	id      string
	x, y    int
	a       *app
	probe   string
}

func findWindow(t testing.TB, display string, a *app, probe string) *window {
	t.Helper()
	id := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Quire$"))[0]
	geo := run(t, display, "xdotool", "getwindowgeometry", "--shell", id)
	return &window{t: t, display: display, id: id, x: shellInt(t, geo, "X"), y: shellInt(t, geo, "Y"), a: a, probe: probe}
}

// click clicks the control the probe names (snapshot.ts POINT_IDS), once
// the page shows it.
func (w *window) click(id string) {
	w.t.Helper()
	v := waitView(w.t, w.a, w.probe, id+" on screen", func(v view) bool { _, ok := v.Points[id]; return ok })
	p := v.Points[id]
	run(w.t, w.display, "xdotool", "mousemove", "--sync", strconv.Itoa(w.x+p.X), strconv.Itoa(w.y+p.Y))
	run(w.t, w.display, "xdotool", "click", "1")
}

// keys presses keys in the window, one after another.
func (w *window) keys(keys ...string) {
	w.t.Helper()
	run(w.t, w.display, "xdotool", "windowfocus", "--sync", w.id)
	for _, k := range keys {
		run(w.t, w.display, "xdotool", "key", "--window", w.id, k)
	}
}

// typeText types text where the keyboard is.
func (w *window) typeText(text string) {
	w.t.Helper()
	run(w.t, w.display, "xdotool", "windowfocus", "--sync", w.id)
	run(w.t, w.display, "xdotool", "type", "--delay", "15", "--window", w.id, text)
}

// failedShot keeps a screenshot and the page's last view of a test that failed.
func failedShot(t *testing.T, display, probe, name string) {
	t.Cleanup(func() {
		if t.Failed() {
			screenshot(t, display, name)
			b, _ := os.ReadFile(probe)
			t.Logf("the last view: %s", b)
		}
	})
}

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
	failedShot(t, display, probe, "desktop-first-run-FAILED.png")
	waitView(t, a, probe, "the download screen", func(v view) bool { return v.FirstRun != nil && v.FirstRun.State == "download" })
	screenshot(t, display, "desktop-first-run.png")
	w := findWindow(t, display, a, probe)
	w.click("download-model")
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

// TestDesktopSettingsPullAndChat (issue 16's Done-when): in the real
// window the user pulls another model from the models screen and sees its
// bar part way, picks it in Settings (Ctrl+,), saves, and chats with it:
// the next request to Ollama names the model.
func TestDesktopSettingsPullAndChat(t *testing.T) {
	display := startXvfb(t)
	const second = "llama3.2:3b"
	fake := ollamatest.New(t, ollamatest.WithDelay(200*time.Millisecond))
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddPullable(ollamatest.Model{Name: second, Capabilities: []string{"completion", "tools"}, ContextLength: 131072, Family: "llama"})
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL())
	failedShot(t, display, probe, "desktop-settings-FAILED.png")
	waitView(t, a, probe, "the chat", func(v view) bool { return v.Messages != nil && v.FirstRun == nil })
	w := findWindow(t, display, a, probe)

	// The models screen: pull by name, its bar part way, then installed.
	w.click("models-open")
	waitView(t, a, probe, "the models screen with qwen3:4b", func(v view) bool { return v.Models != nil && slices.Contains(v.Models.Installed, "qwen3:4b") })
	w.click("pull-name")
	w.typeText(second)
	w.keys("Return")
	waitView(t, a, probe, "the pull's bar part way", func(v view) bool {
		if v.Models == nil {
			return false
		}
		for _, p := range v.Models.Pulls {
			if p.Name == second && p.State == "running" && p.Percent != nil && *p.Percent > 0 && *p.Percent < 100 {
				return true
			}
		}
		return false
	})
	screenshot(t, display, "desktop-models-pull.png")
	waitView(t, a, probe, second+" installed", func(v view) bool { return v.Models != nil && slices.Contains(v.Models.Installed, second) })
	w.keys("Escape")
	waitView(t, a, probe, "the models screen closed", func(v view) bool { return v.Models == nil })

	// Settings: choose it and save.
	w.keys("ctrl+comma")
	waitView(t, a, probe, "the Settings screen", func(v view) bool { _, ok := v.Points["settings-model"]; return v.Settings != nil && ok })
	w.click("settings-model")
	w.keys("ctrl+a")
	w.typeText(second)
	// The click must not overtake the last typed key.
	waitView(t, a, probe, "the model typed", func(v view) bool { return v.Settings != nil && v.Settings.Model == second })
	w.click("settings-save")
	waitView(t, a, probe, "the settings saved", func(v view) bool { return v.Settings != nil && v.Settings.Saved })
	screenshot(t, display, "desktop-settings-saved.png")
	w.keys("Escape")
	waitView(t, a, probe, "the Settings screen closed", func(v view) bool { return v.Settings == nil })

	const typed = "hello from the second model"
	w.click("composer")
	w.typeText(typed)
	w.keys("Return")
	waitView(t, a, probe, "the reply", func(v view) bool { return v.has("assistant", "You said: "+typed) && !v.Streaming })
	reqs := fake.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Chat.Model != second {
		t.Fatalf("the chat did not go to %s: %d requests, the last %+v", second, len(reqs), reqs[len(reqs)-1:])
	}
	screenshot(t, display, "desktop-settings-chat.png")
}
