//go:build e2e

package e2e

import (
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"quire/test/ollamatest"
)

// settingsPrompt is the settings case's message: the fake model answers it
// with what the request carried of the Settings screen's choices, so the
// page shows what Ollama was sent.
const settingsPrompt = "/settings what were you sent?"

// settingsEcho answers settingsPrompt with the request's temperature and
// whether the system text holds the words about the user.
func settingsEcho(req api.ChatRequest) (ollamatest.Turn, bool) {
	if n := len(req.Messages); n == 0 || req.Messages[n-1].Role != "user" || req.Messages[n-1].Content != settingsPrompt {
		return ollamatest.Turn{}, false
	}
	temp := "the model's own"
	if t, ok := req.Options["temperature"]; ok {
		temp = fmt.Sprint(t)
	}
	about := "nothing about you"
	for _, m := range req.Messages {
		if m.Role == "system" && containsAbout(m.Content) {
			about = "your words about you"
		}
	}
	return say(fmt.Sprintf("I was sent temperature %s and %s.", temp, about)), true
}

// aboutMark is what the case writes in "what Quire should know about you".
const aboutMark = "I keep my notes in Esperanto."

func containsAbout(s string) bool { return strings.Contains(s, aboutMark) }
