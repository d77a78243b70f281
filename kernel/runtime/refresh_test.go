package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"quire/kernel/event"
	"quire/kernel/runtime"
	"quire/kernel/tool"
)

// notebook is a contributor whose text a tool changes mid-run, as memory's
// remember tool or compaction's extracted facts change working memory.
type notebook struct {
	mu   sync.Mutex
	text string
}

func (n *notebook) Name() string { return "working memory" }
func (n *notebook) Contribute(context.Context, string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.text, nil
}
func (n *notebook) set(text string) { n.mu.Lock(); n.text = text; n.mu.Unlock() }

// TestContextIsRefreshedEachStep: what a contributor knows after a tool ran
// reaches the next step of the same run, not only the next run; the new
// text is in the log stamped with the run, and every request is still
// rebuilt byte for byte from the log. A step whose text did not change
// stores nothing.
func TestContextIsRefreshedEachStep(t *testing.T) {
	book := &notebook{text: "Nothing noted yet."}
	note := &fakeTool{spec: tool.Spec{Name: "note", Description: "Note a fact.", Effects: tool.ReadFs, Idempotency: tool.Safe,
		Parameters: map[string]any{"type": "object"}},
		run: func(context.Context, tool.Call) (tool.Result, error) {
			book.set("The user's cat is called Miso.")
			return tool.Result{Status: tool.Success, Content: "noted"}, nil
		}}
	k := kit(t, withTools(note), runtime.WithContributors(book))
	k.Ollama.Script(calling(`c1:note:{}`), saying("Noted."), saying("Hi again."))
	s := chat(t, k)
	run := say(t, k, s, "my cat is Miso", "")
	waitRuns(t, k, s, 1)
	say(t, k, s, "hello", "")
	evs := waitRuns(t, k, s, 2)

	sent := requests(k)
	if len(sent) != 3 {
		t.Fatalf("%d requests, want 3", len(sent))
	}
	for i, want := range []string{"Nothing noted yet.", "Miso", "Miso"} {
		if sys := sent[i].Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, want) {
			t.Errorf("request %d system message %q, want it to contain %q", i+1, sys.Content, want)
		}
	}
	var refreshed int
	for _, e := range evs {
		if e.Type == event.ContextText && e.RunID != "" {
			refreshed++
			if e.RunID != run {
				t.Errorf("a refreshed context text carries run %q, want %q", e.RunID, run)
			}
		}
	}
	if refreshed != 1 {
		t.Errorf("%d refreshed context texts, want 1 (step 2 of run 1; run 2 opens with the new text)", refreshed)
	}
	rebuiltAsSent(t, k, s)
}
