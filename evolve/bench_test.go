package evolve_test

import (
	"fmt"
	"testing"

	"quire/kernel/event"
)

// BenchmarkObserveARun is the observer's work after one run (off the run's
// path, in the runtime's post-run goroutine) in a data folder of 20
// conversations: the run searched the notes in vain, as each of the others
// did, so the observer reads the recent conversations' results to tell it
// is repeated, and appends the signal.
func BenchmarkObserveARun(b *testing.B) {
	r := newRig(b, map[string]string{"a.md": "# A\n"}, false)
	var last, run string
	for i := range 20 {
		last = r.chat(b)
		r.k.Ollama.Script(calling(fmt.Sprint("f", i), "find_notes", `{"query":"tax 2019"}`), saying("Nothing."))
		run = r.say(b, last, "where is my tax 2019 note?")
	}
	ctx := b.Context()
	b.ResetTimer()
	for b.Loop() {
		r.post.Next.RunFinished(ctx, last, run, event.ReasonCompleted)
	}
}
