package protocol

import "strings"

// ToolPhrases is what a call of each built-in tool did, in a few words a
// person reads in place of its name ("Listed the notes", not list_notes).
// Every host says the same: the terminal through ToolPhrase, the page
// through the generated TOOL_PHRASES (internal/contract). A fresh map each
// call, so no caller can change another's words.
func ToolPhrases() map[string]string {
	return map[string]string{
		"list_notes":      "Listed the notes",
		"read_note":       "Read a note",
		"find_notes":      "Searched the notes",
		"create_note":     "Created a note",
		"edit_note":       "Edited a note",
		"append_note":     "Added to a note",
		"move_note":       "Moved a note",
		"set_tags":        "Set tags",
		"search_docs":     "Searched the documents",
		"remember":        "Remembered something",
		"forget":          "Forgot something",
		"update_todos":    "Updated the plan",
		"load_skill":      "Loaded a skill",
		"organise_folder": "Organised a folder",
		"report_state":    "Reported its progress",
	}
}

// ToolPhrase is what a call of tool name did. A name ToolPhrases does not
// know (an MCP server's "server__tool", a new tool) reads as its words,
// underscores as spaces, with the server in brackets: never dropped.
// frontend/src/lib/toolwords.ts toolPhrase is the same rule.
func ToolPhrase(name string) string {
	if p, ok := ToolPhrases()[name]; ok {
		return p
	}
	server, tool, mcp := strings.Cut(name, "__")
	if !mcp {
		server, tool = "", name
	}
	words := strings.TrimSpace(strings.ReplaceAll(tool, "_", " "))
	if words == "" {
		words = name
	}
	if server != "" {
		return words + " (" + server + ")"
	}
	return words
}

// ToolOutcomes is how a call ended, in words, by its result's status
// (tool.result): "Read a note: failed", not "failure". The page reads the
// generated TOOL_OUTCOMES.
func ToolOutcomes() map[string]string {
	return map[string]string{
		"success":   "done",
		"empty":     "nothing found",
		"failure":   "failed",
		"denied":    "refused",
		"cancelled": "stopped",
	}
}

// ToolOutcome is status in words; one it does not know, with underscores
// as spaces.
func ToolOutcome(status string) string {
	if w, ok := ToolOutcomes()[status]; ok {
		return w
	}
	return strings.ReplaceAll(status, "_", " ")
}
