package runtime

import (
	"fmt"
	"strings"

	"quire/kernel/event"
)

// A reply is watched as it streams, so that a model that never stops is
// ended by Quire even if the server's own bound (num_predict, replyBound)
// does not hold: the run's token budget is checked at every piece, not only
// between steps, and a reply that repeats one piece over and over is cut.

// Repetition: the reply's last characters are one piece of at most
// maxPiece bytes repeated at least minRepeats times over at least
// minRepeatSpan bytes. Prose, lists and tables do not do that; a model
// stuck in a loop does it at once and for ever.
const (
	maxPiece      = 512
	minRepeats    = 4
	minRepeatSpan = 1024
	// checkEvery: the tail is checked each time this many bytes came, not
	// at every token, so a long reply costs a bounded amount of work.
	checkEvery = 64
)

// errRunaway stops a reply from inside the stream; reason is the run's
// finish reason and message the sentence the run ends with.
type errRunaway struct{ reason, message string }

func (e *errRunaway) Error() string { return e.message }

// runawayWatch follows one streamed reply. It is used by one goroutine.
type runawayWatch struct {
	budget  int // the run's token budget; 0 for none
	spent   int // tokens the run used before this reply, and its prompt
	tokens  int // tokens of this reply so far
	text    strings.Builder
	checked int // text length at the last repetition check
}

// add counts one piece of the reply and reports why it must stop, or nil.
// Ollama streams a token a chunk; a chunk that carries more text than a
// token counts as its characters over four, as the rest of the estimates.
func (w *runawayWatch) add(content, thinking string) *errRunaway {
	piece := content + thinking
	w.tokens += max(1, (len([]rune(piece))+3)/4)
	if w.budget > 0 && w.spent+w.tokens > w.budget {
		return &errRunaway{event.ReasonBudget, fmt.Sprintf(
			"Stopped: this reply would pass this request's budget of %d tokens (about %d used). What it wrote so far is kept.",
			w.budget, w.spent+w.tokens)}
	}
	w.text.WriteString(piece)
	if w.text.Len()-w.checked < checkEvery {
		return nil
	}
	w.checked = w.text.Len()
	if p := period(w.text.String()); p > 0 {
		return &errRunaway{event.ReasonLoop, fmt.Sprintf(
			"Stopped: the reply kept repeating the same %d characters. What it wrote so far is kept; ask again, or try another model.",
			len([]rune(w.text.String()[w.text.Len()-p:])))}
	}
	return nil
}

// period is the length of the piece text's end repeats (see maxPiece),
// or 0 when it does not.
func period(text string) int {
	for p := 1; p <= maxPiece; p++ {
		span := max(minRepeats*p, minRepeatSpan)
		if len(text) < span {
			return 0
		}
		tail := text[len(text)-span:]
		if tail[p:] == tail[:span-p] {
			return p
		}
	}
	return 0
}
