package runtime_test

import (
	"fmt"
	"strings"
	"testing"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
)

// TestOneLongReplyNeverBreaksAChat: a reply too long for the window (a
// 6 KB reply cut off when the runner died; Chinese text, where a character
// is about a token) used to leave every later message failing with
// "compacting it did not make it smaller. Start a new chat": it sat in the
// recent tail compaction spares. It is now replaced on its own (a
// history.replace; the log keeps it whole) and the chat goes on.
func TestOneLongReplyNeverBreaksAChat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
	}{
		{"an interrupted 6 KB reply", numbered("Task %d of the quarterly plan has an owner and a date. ", 120)},
		{"Chinese text, a token a character", numbered("第%d项任务列出了负责人和日期。", 150)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := kit(t, runtime.WithCompaction(compact.New()))
			k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.NumCtx = 1024 }))
			pieces := strings.SplitAfter(tt.reply, "。")
			if len(pieces) < 2 {
				pieces = strings.SplitAfter(tt.reply, ". ")
			}
			k.Ollama.Script(ollamatest.Turn{Content: pieces, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: len(pieces),
				Message: "an error was encountered while running the model: unexpected EOF"}})
			s := chat(t, k)
			say(t, k, s, "Write out the plan.", "")
			waitRuns(t, k, s, 1)
			say(t, k, s, "Thanks. What is the first task?", "")
			say(t, k, s, "And the second?", "")
			evs := waitRuns(t, k, s, 3)

			fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
			for i, f := range fins[1:] {
				if f.Reason != event.ReasonCompleted {
					t.Errorf("run %d after the long reply finished %q: %s", i+2, f.Reason, f.Error)
				}
			}
			msgs := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage)
			if !msgs[0].Interrupted || len(msgs[0].Content) < 6000 {
				t.Fatalf("the first reply: interrupted %v, %d bytes; want a cut-off reply of over 6 KB", msgs[0].Interrupted, len(msgs[0].Content))
			}
			reps := only[event.HistoryReplacePayload](t, evs, event.HistoryReplace)
			if len(reps) == 0 {
				t.Fatal("no history.replace: the long reply was never compacted")
			}
			// The log still holds the reply whole.
			if evs := only[event.AssistantMessagePayload](t, logOf(t, k, s), event.AssistantMessage); evs[0].Content != msgs[0].Content {
				t.Error("the long reply was changed in the log")
			}
		})
	}
}

// numbered is format filled with 1..n, joined: a long text that never
// repeats itself (the repetition guard leaves it alone).
func numbered(format string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i+1)
	}
	return b.String()
}
