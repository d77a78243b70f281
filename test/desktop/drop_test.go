//go:build desktoptest

package desktop

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"quire/test/ollamatest"
)

// buildDragSource compiles testdata/dragsource.c, a tiny GTK window that is
// an XDND drag source (GTK's headers come with libgtk-3-dev, which building
// the app needs anyway).
func buildDragSource(t *testing.T) string {
	t.Helper()
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "gtk+-3.0").Output()
	if err != nil {
		t.Fatalf("pkg-config gtk+-3.0 (is libgtk-3-dev installed?): %v", err)
	}
	bin := filepath.Join(t.TempDir(), "dragsource")
	args := append([]string{"-o", bin, filepath.Join("testdata", "dragsource.c")}, strings.Fields(string(flags))...)
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		t.Fatalf("cc dragsource.c: %v\n%s", err, out)
	}
	return bin
}

// dragSource is the running drag source; lines carries what it prints
// ("ready", "sent", "end").
type dragSource struct {
	lines chan string
}

func startDragSource(t *testing.T, bin, display string, x, y int, uris ...string) *dragSource {
	t.Helper()
	cmd := exec.Command(bin, append([]string{strconv.Itoa(x), strconv.Itoa(y)}, uris...)...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "GDK_BACKEND=x11", "NO_AT_BRIDGE=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	d := &dragSource{lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(io.Reader(out))
		for sc.Scan() {
			d.lines <- strings.TrimSpace(sc.Text())
		}
		close(d.lines)
	}()
	d.expect(t, "ready")
	return d
}

func (d *dragSource) expect(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				t.Fatalf("the drag source exited before printing %q", want)
			}
			if l == want {
				return
			}
		case <-timeout:
			t.Fatalf("the drag source did not print %q", want)
		}
	}
}

// TestDesktopDropFolderIndexesAndCites drops a folder on the real window
// with a real XDND drag (not an emitted wails:file-drop event): xdotool
// presses on a GTK drag source offering the folder as text/uri-list, moves
// onto the Quire window and releases. Wails' GTK drop handler hands the path
// to OnFileDrop; the folder is indexed in the background and the page's
// progress bar reaches done (a binary file among them failed). Then a
// question is asked; the fake model calls search_docs and answers citing
// [1], and the answer shows [1] as a citation link; clicking it opens the
// source viewer on the cited lines. The page stayed the app throughout
// (WebKit did not open the dropped folder). The release is on a button
// right after the pointer entered it (see the move before mouseup).
func TestDesktopDropFolderIndexesAndCites(t *testing.T) {
	display := startXvfb(t)
	var calls atomic.Int32
	const question = "how do I water the basil"
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond), ollamatest.WithReplies(func(last string) (ollamatest.Turn, bool) {
		if !strings.Contains(last, question) {
			return ollamatest.Turn{}, false
		}
		if calls.Add(1) == 1 {
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "s1", Name: "search_docs",
				Arguments: []byte(`{"query":"water the basil every morning"}`)}}}, true
		}
		return ollamatest.Turn{Content: []string{"Water the basil ", "every morning [1]."}}, true
	}))
	fake.AddModel(ollamatest.DefaultModel())

	docs := filepath.Join(t.TempDir(), "papers")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"garden.md": "# Garden\n\nTomatoes need sun.\n\n## Water\n\nWater the basil every morning.\nNever let the pots dry out.\n",
		"soil.txt":  "Compost feeds the soil.\n",
		"photo.txt": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
	} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildDragSource(t)
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL())
	startView := waitView(t, a, probe, "the frontend to load", func(v view) bool {
		_, ok := v.Points["example"]
		return v.Messages != nil && ok
	})
	win := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Quire$"))[0]
	geo := run(t, display, "xdotool", "getwindowgeometry", "--shell", win)
	wx, wy, ww, wh := shellInt(t, geo, "X"), shellInt(t, geo, "Y"), shellInt(t, geo, "WIDTH"), shellInt(t, geo, "HEIGHT")

	// The source sits at the screen's bottom right, over the window's corner.
	src := startDragSource(t, bin, display, 1200, 720, "file://"+docs)
	run(t, display, "xdotool", "mousemove", "--sync", "1236", "756")
	run(t, display, "xdotool", "mousedown", "1")
	time.Sleep(300 * time.Millisecond)
	tx, ty := wx+ww/2, wy+wh/2
	for i := 1; i <= 8; i++ { // GTK starts the drag after the pointer moved past its threshold
		x, y := 1236+(tx-1236)*i/8, 756+(ty-756)*i/8
		run(t, display, "xdotool", "mousemove", strconv.Itoa(x), strconv.Itoa(y))
		time.Sleep(120 * time.Millisecond)
	}
	// The release comes after one motion onto a button the pointer had not
	// been over (the empty chat's first example): WebKit answers the source
	// with that element's dragenter, not a dragover, so the page must
	// accept the drag on dragenter too, or the drop is refused.
	btn := startView.Points["example"]
	run(t, display, "xdotool", "mousemove", strconv.Itoa(wx+btn.X), strconv.Itoa(wy+btn.Y))
	time.Sleep(400 * time.Millisecond)
	run(t, display, "xdotool", "mouseup", "1")
	src.expect(t, "sent") // the window asked for the dropped URIs: an XDND drop happened
	src.expect(t, "end")

	got := waitView(t, a, probe, "indexing of the dropped folder to finish", func(v view) bool {
		return v.Indexing != nil && v.Indexing.Phase == "done" && v.Indexing.Total == 3 && v.Messages != nil
	})
	screenshot(t, display, "desktop-drop-indexed.png")
	if got.Indexing.Done != 3 || got.Indexing.Label != "Indexed 3 files" {
		t.Fatalf("the bar after the drop: %+v", got.Indexing)
	}

	run(t, display, "xdotool", "windowfocus", "--sync", win)
	run(t, display, "xdotool", "type", "--delay", "15", "--window", win, question)
	run(t, display, "xdotool", "key", "--window", win, "Return")
	got = waitView(t, a, probe, "the cited answer", func(v view) bool {
		return v.has("assistant", "Water the basil every morning [1].") && !v.Streaming && slices.Contains(v.Citations, "[1]")
	})
	screenshot(t, display, "desktop-drop-cited.png")
	if n := calls.Load(); n != 2 {
		t.Fatalf("the model was asked %d times, want 2 (search_docs, then the answer)", n)
	}
	// Clicking [1] in the window opens the viewer on garden.md (read through
	// the DocumentSource binding) with the cited lines highlighted.
	if len(got.CitationPoints) != 1 {
		t.Fatalf("citation links on screen: %+v", got.CitationPoints)
	}
	p := got.CitationPoints[0]
	run(t, display, "xdotool", "mousemove", "--sync", strconv.Itoa(wx+p.X), strconv.Itoa(wy+p.Y))
	run(t, display, "xdotool", "click", "1")
	got = waitView(t, a, probe, "the source viewer at the cited lines", func(v view) bool {
		return v.Viewer != nil && v.Viewer.Highlighted != ""
	})
	screenshot(t, display, "desktop-drop-source.png")
	if got.Viewer.Name != "papers/garden.md" || !strings.Contains(got.Viewer.Highlighted, "Water the basil every morning.") {
		t.Fatalf("the viewer: %+v", got.Viewer)
	}
	// search_docs really searched the dropped folder: its result went back to the model.
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	body := string(last.Body)
	if !strings.Contains(body, "papers/garden.md") || !strings.Contains(body, "Water the basil every morning") {
		t.Fatalf("the second request does not carry search_docs' citation of garden.md: %.2000s", body)
	}
}

// shellInt reads KEY=N from `xdotool getwindowgeometry --shell`.
func shellInt(t testing.TB, out, key string) int {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+"="); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s=%q: %v", key, v, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in %q", key, out)
	return 0
}
