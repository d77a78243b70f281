package evolve_test

import (
	"fmt"
	"testing"
	"time"

	"quire/evolve"
	"quire/kernel/event"
	"quire/kernel/protocol"
)

func TestWhatReadsAsACorrection(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"No, receipts go under finance/receipts/2026", true},
		{"no. put it in projects", true},
		{"Wrong folder", true},
		{"Actually, that one belongs in archive/", true},
		{"It should go under finance", true},
		{"move it to archive instead", true},
		{"that note belongs to projects/", true},
		{"thanks, now file the next one", false},
		{"now tag it #tax", false},
		{"Notes about the knot", false}, // "no" only as a word of its own
		{"another receipt: inbox/r.md", false},
	} {
		if got := evolve.IsCorrection(c.text); got != c.want {
			t.Errorf("IsCorrection(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestWhatIsSaidNearlyTheSame(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"The user files receipts by year.", "the user files receipts by year", true},
		{"The user files receipts by year under finance.", "The user files receipts by year, under finance", true},
		{"The user files receipts by year.", "The user files invoices by month.", false},
		{"The user likes short titles.", "", false},
	} {
		if got := evolve.NearSame(c.a, c.b); got != c.want {
			t.Errorf("NearSame(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestTheSignalsOfFinishedRuns: each kind of signal from real runs, with
// the seqs it was read from, and none where there is nothing to see.
func TestTheSignalsOfFinishedRuns(t *testing.T) {
	t.Run("an undo, once", func(t *testing.T) {
		r := newRig(t, map[string]string{"inbox/a.md": "# A\n", "done/.keep": ""}, false)
		s := r.chat(t)
		r.k.Ollama.Script(calling("u1", "move_note", `{"from":"inbox/a.md","to":"done/a.md"}`), saying("Moved."), saying("ok"), saying("ok"))
		r.say(t, s, "move it")
		undone, err := r.k.Runtime.AppendPlain(t.Context(), s, event.Draft{Type: event.NoteUndone, Time: time.Now(),
			Payload: event.NoteUndonePayload{Undoes: "chg_1", Text: "Moved done/a.md back to inbox/a.md"}})
		if err != nil {
			t.Fatal(err)
		}
		r.say(t, s, "thanks")
		r.say(t, s, "and now?")
		got := r.signals(t, s)
		if len(got) != 1 || got[0].Kind != protocol.SignalUndone || len(got[0].Seqs) != 1 || got[0].Seqs[0] != undone[0].Seq {
			t.Fatalf("signals %+v, want the one undo (seq %d), once", got, undone[0].Seq)
		}
	})
	t.Run("a search that found nothing before too", func(t *testing.T) {
		r := newRig(t, map[string]string{"a.md": "# A\n"}, false)
		first, second := r.chat(t), r.chat(t)
		for i, s := range []string{first, second} {
			r.k.Ollama.Script(calling(fmt.Sprint("f", i), "find_notes", `{"query":"tax 2019"}`), saying("Nothing."))
			r.say(t, s, "where is my tax 2019 note?")
		}
		if got := r.signals(t, first); len(got) != 0 {
			t.Fatalf("the first empty search is a signal: %+v", got)
		}
		got := r.signals(t, second)
		if len(got) != 1 || got[0].Kind != protocol.SignalFailedSearch || got[0].Tool != "find_notes" {
			t.Fatalf("signals %+v, want the repeated empty search", got)
		}
	})
	t.Run("a preference said again", func(t *testing.T) {
		r := newRig(t, nil, false)
		first, second := r.chat(t), r.chat(t)
		for i, c := range []struct{ s, text string }{{first, "The user files receipts by year."}, {second, "The user files receipts by year"}} {
			r.k.Ollama.Script(calling(fmt.Sprint("r", i), "remember", fmt.Sprintf(`{"kind":"preference","text":%q}`, c.text)), saying("Noted."))
			r.say(t, c.s, "remember that I file receipts by year")
		}
		if got := r.signals(t, first); len(got) != 0 {
			t.Fatalf("the first time is a signal: %+v", got)
		}
		got := r.signals(t, second)
		if len(got) != 1 || got[0].Kind != protocol.SignalRestated || len(got[0].Seqs) != 1 {
			t.Fatalf("signals %+v, want the preference said again", got)
		}
	})
	t.Run("a yes and a plain next message are no signal", func(t *testing.T) {
		r := newRig(t, map[string]string{"inbox/a.md": "# A\n", "done/.keep": ""}, false)
		s := r.chat(t)
		r.k.Ollama.Script(calling("n1", "move_note", `{"from":"inbox/a.md","to":"done/a.md"}`), saying("Moved."), saying("ok"))
		r.say(t, s, "move it")
		r.say(t, s, "thanks, now the next one")
		if got := r.signals(t, s); len(got) != 0 {
			t.Fatalf("signals %+v", got)
		}
	})
}
