package eval

import (
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"

	"quire/kernel/compact"
	"quire/test/ollamatest"
)

// compactionStandIn answers the compactor's own model requests in scripted
// runs, so a scenario's script is only the conversation it was written for.
// It is a faithful summariser: it keeps what the user said and any earlier
// summary, word for word, and drops the rest — what a good model would keep
// of a transcript of tool logs. Against a real model it is not used.
func compactionStandIn(req api.ChatRequest) (ollamatest.Turn, bool) {
	if len(req.Messages) < 2 || req.Messages[0].Role != "system" {
		return ollamatest.Turn{}, false
	}
	system, transcript := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	var said []string
	for line := range strings.SplitSeq(transcript, "\n") {
		if strings.HasPrefix(line, "User: ") || strings.HasPrefix(line, "Earlier summary: ") {
			said = append(said, line)
		}
	}
	switch system {
	case compact.SummarisePrompt:
		if len(said) == 0 {
			said = []string{"The assistant read and listed notes; nothing the user said is in this part."}
		}
		return ollamatest.Turn{Content: []string{strings.Join(said, "\n")}}, true
	case compact.FactsPrompt:
		items := []compact.Item{}
		for _, s := range said {
			items = append(items, compact.Item{Kind: "fact", Text: s})
		}
		answer, _ := json.Marshal(map[string]any{"items": items})
		return ollamatest.Turn{Content: []string{string(answer)}}, true
	}
	return ollamatest.Turn{}, false
}
