package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"quire/kernel/protocol"
	"quire/test/ollamatest"
)

func TestModelsCommand(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, Size: 274_302_450})
	fake.Load("qwen3:4b")
	flags := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL()}

	var out, errb bytes.Buffer
	if code := run(append([]string{"models"}, flags...), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	var chat, embed string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "qwen3:4b "):
			chat = l
		case strings.HasPrefix(l, "nomic-embed-text:latest "):
			embed = l
		}
	}
	for _, want := range []string{"2.5 GB", "40960", "tools, thinking", "loaded"} {
		if !strings.Contains(chat, want) {
			t.Errorf("the chat model's line %q lacks %q", chat, want)
		}
	}
	if !strings.Contains(embed, "274 MB") || !strings.Contains(embed, "embedding") || strings.Contains(embed, "loaded") {
		t.Errorf("the embedding model's line: %q", embed)
	}
	rec := out.String()[strings.Index(out.String(), "Recommended"):]
	if !strings.Contains(rec, "qwen3:8b") || strings.Contains(rec, "qwen3:4b") || strings.Contains(rec, "nomic-embed-text") {
		t.Errorf("the recommended part should list only what is not installed:\n%s", rec)
	}

	out.Reset()
	if code := run(append([]string{"models", "-json"}, flags...), &out, &errb); code != exitOK {
		t.Fatalf("-json: exit %d: %s", code, errb.String())
	}
	var st protocol.ModelsState
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || len(st.Installed) != 2 || !st.Installed[1].Loaded {
		t.Errorf("-json: %v %s", err, out.String())
	}
}

func TestModelsCommandWithoutOllama(t *testing.T) {
	fake := ollamatest.New(t)
	url := fake.URL()
	fake.Close()
	var out, errb bytes.Buffer
	code := run([]string{"models", "-data-dir", t.TempDir(), "-ollama-host", url}, &out, &errb)
	if code != exitFailed || !strings.Contains(errb.String(), "Ollama is not running") || !strings.Contains(out.String(), "qwen3:4b") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant 1, the reason, and the recommended list", code, out.String(), errb.String())
	}
}

func TestPullCommand(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddPullable(ollamatest.Model{Name: "tiny-text", Size: 4000})
	flags := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL()}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"pulls", []string{"tiny-text"}, exitOK, "tiny-text is installed (4.5 KB)", ""},
		{"unknown", []string{"no-such-model"}, exitFailed, "", "no model \"no-such-model\""},
		{"bad name", []string{"bad name!"}, exitFailed, "", "not a valid Ollama model name"},
		{"no name", nil, exitUsage, "", "usage: quire pull NAME"},
		{"two names", []string{"a", "b"}, exitUsage, "", "usage: quire pull NAME"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append(append([]string{"pull"}, flags...), tc.args...), &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant %d, %q, %q", code, out.String(), errb.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestPullCommandInterruptedThenResumed: Ctrl-C stops the pull with 130
// and says how to resume; pulling again continues from the bytes kept.
func TestPullCommandInterruptedThenResumed(t *testing.T) {
	// The fake holds the pull at 2,000 of the first layer's 4,000 bytes
	// until it is cancelled.
	fake := ollamatest.New(t, ollamatest.WithHeldWait(5))
	fake.AddPullable(ollamatest.Model{Name: "qwen3:4b", Size: 4000})
	flags := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL()}

	// Ctrl-C once the bar shows the held figure.
	ctx, interrupt := context.WithCancel(t.Context())
	errb := &watchedWriter{want: "2.0 KB / 4.0 KB", seen: interrupt}
	var out bytes.Buffer
	if code := runCtx(ctx, append([]string{"pull"}, append(flags, "qwen3:4b")...), &out, errb); code != exitInterrupted {
		t.Fatalf("interrupted pull: exit %d, stderr %s; want %d", code, errb.String(), exitInterrupted)
	}
	if !strings.Contains(errb.String(), "stopped at 2.0 KB of 4.0 KB") || !strings.Contains(errb.String(), "`quire pull qwen3:4b` resumes it") {
		t.Errorf("stderr %q; want where it stopped and how to resume", errb.String())
	}
	out.Reset()
	var errb2 bytes.Buffer
	if code := run(append([]string{"pull"}, append(flags, "qwen3:4b")...), &out, &errb2); code != exitOK || !strings.Contains(out.String(), "qwen3:4b is installed") {
		t.Fatalf("resumed pull: exit %d, %s %s", code, out.String(), errb2.String())
	}
}

// watchedWriter is a buffer that calls seen once what it holds contains want.
type watchedWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen func()
	once sync.Once
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(w.seen)
	}
	return n, err
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestPullRateIsChangeBetweenReadings(t *testing.T) {
	t.Parallel()
	type reading struct{ at, bytes int64 }
	tests := []struct {
		name     string
		readings []reading
		want     float64
	}{
		{"one reading says nothing", []reading{{0, 100}}, 0},
		{"steady", []reading{{0, 0}, {1000, 1000}, {2000, 2000}}, 1000},
		{"a resumed pull counts only what came now", []reading{{0, 2_000_000}, {1000, 2_500_000}}, 500_000},
		{"only the last five seconds", []reading{{0, 0}, {1000, 9000}, {7000, 9600}, {8000, 9700}}, 100},
		{"a new pull of the name starts again", []reading{{0, 0}, {1000, 5000}, {2000, 100}, {3000, 300}}, 200},
		{"no time between readings", []reading{{5, 0}, {5, 100}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r rate
			for _, x := range tc.readings {
				r.add(x.at, x.bytes)
			}
			if got := r.perSecond(); got != tc.want {
				t.Errorf("perSecond = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAResumedPullsBarCountsOnlyWhatCameNow: every pull starts with
// readings before a layer is counted (total 0); a resumed pull's first
// counted reading already holds the bytes on disk, which must not show as
// a burst of speed.
func TestAResumedPullsBarCountsOnlyWhatCameNow(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	bar := &pullBar{statusLine: statusLine{w: &out}}
	for _, u := range []protocol.PullProgress{
		{Model: "qwen3:8b", State: protocol.PullRunning, Status: "starting", AtMs: 0},
		{Model: "qwen3:8b", State: protocol.PullRunning, Status: "pulling manifest", AtMs: 100},
		{Model: "qwen3:8b", State: protocol.PullRunning, Status: "pulling a1b2", Completed: 1_300_000_000, Total: 5_200_000_000, AtMs: 1000},
		{Model: "qwen3:8b", State: protocol.PullRunning, Status: "pulling a1b2", Completed: 1_310_000_000, Total: 5_200_000_000, AtMs: 2000},
	} {
		bar.show(u)
	}
	if got := bar.rate.perSecond(); got != 10_000_000 {
		t.Errorf("speed after resuming at 1.3 GB and 10 MB in a second: %v B/s, want 10 MB/s", got)
	}
}

func TestSizeText(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 4487: "4.5 KB", 274_302_450: "274 MB", 2_500_000_000: "2.5 GB", 52_000_000_000: "52.0 GB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}
