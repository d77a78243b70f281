package host

import (
	"fmt"
	"strings"
)

// Caps is what the terminal hosts read of the capabilities a run froze
// (event.Capabilities, on its input.received): what it says about the
// tools the model is offered.
type Caps struct {
	Model  string `json:"model"`
	NumCtx int    `json:"numCtx"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	ToolsOff   string   `json:"toolsOff"`
	Withheld   []string `json:"withheld"`
	ToolModels []string `json:"toolModels"`
	LeftOut    []string `json:"leftOut"`
}

// Notice is what a run's capabilities must tell the user, once per
// conversation for each Key: that the model works without tools, and what
// that means, or which tools were left out to fit its context. Both
// sentences are the window's own (frontend/src/lib/conversation.ts
// toolsOffText and leftOutText), so every host says the same. Empty when
// there is nothing to tell.
func Notice(c *Caps) (key, text string) {
	switch {
	case c == nil:
		return "", ""
	case c.ToolsOff != "":
		return "tools-off\x00" + c.Model, toolsOffText(c)
	case len(c.LeftOut) > 0:
		return "left-out\x00" + c.Model + "\x00" + strings.Join(c.LeftOut, ","), leftOutText(c)
	}
	return "", ""
}

func toolsOffText(c *Caps) string {
	why := c.Model + " cannot use tools"
	if c.ToolsOff == "refused" {
		why = "Ollama refused tools for " + c.Model
	}
	cannot := ", so Quire answers without them in this chat."
	if can := abilities(c.Withheld); len(can) > 0 {
		cannot = ", so in this chat Quire cannot " + join(can, "or") + "."
	}
	instead := " Choose a model that can use tools in Settings to do these."
	if len(c.ToolModels) > 0 {
		instead = " " + join(c.ToolModels, "or") + " can: choose it in Settings."
	}
	return why + cannot + instead
}

func leftOutText(c *Caps) string {
	return fmt.Sprintf("All of Quire's tools would not fit %s's context of %s tokens, so this request offers the %d it needs most and leaves out %s. "+
		"Ask for what those do by name, or choose a model with a larger context in Settings.", c.Model, thousands(c.NumCtx), len(c.Tools), join(c.LeftOut, "and"))
}

// abilities is what the withheld tools would have let Quire do.
func abilities(withheld []string) []string {
	has := func(f func(string) bool) bool {
		for _, n := range withheld {
			if f(n) {
				return true
			}
		}
		return false
	}
	var out []string
	if has(func(n string) bool {
		return strings.HasSuffix(n, "_note") || strings.HasSuffix(n, "_notes") || n == "undo" || n == "make_folder" || n == "set_tags"
	}) {
		out = append(out, "read or change your notes")
	}
	if has(func(n string) bool { return n == "search_docs" }) {
		out = append(out, "search your documents")
	}
	if has(func(n string) bool { return n == "remember" || n == "forget" }) {
		out = append(out, "remember things for later")
	}
	if has(func(n string) bool { return n == "update_todos" }) {
		out = append(out, "keep a plan")
	}
	return out
}

func join(words []string, and string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
