package notes

import (
	"encoding/json"
	"fmt"
	"strings"

	"quire/kernel/tool"
)

// Describe says what a call would do, for the permission dialog: for an
// edit a compact unified diff, for a move "from → to", for a new note its
// first lines. It reads only the call, never the disk.
func (t *noteTool) Describe(call tool.Call) string {
	var a map[string]any
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return ""
	}
	str := func(k string) string { s, _ := a[k].(string); return s }
	switch t.spec.Name {
	case "create_note":
		return fmt.Sprintf("Create %s:\n%s", str("path"), prefixed("+ ", str("content"), 12))
	case "append_note":
		return fmt.Sprintf("Add to the end of %s:\n%s", str("path"), prefixed("+ ", str("text"), 12))
	case "edit_note":
		return fmt.Sprintf("Change %s:\n%s", str("path"), compactDiff(str("find"), str("replace")))
	case "move_note":
		return fmt.Sprintf("Move %s → %s", str("from"), str("to"))
	case "make_folder":
		return "Make the folder " + str("path")
	case "set_tags":
		var tags []string
		if list, ok := a["tags"].([]any); ok {
			for _, x := range list {
				tags = append(tags, fmt.Sprint(x))
			}
		}
		return fmt.Sprintf("Set the tags of %s to: %s", str("path"), strings.Join(tags, ", "))
	case "link_notes":
		return fmt.Sprintf("Add to %s a link to %s", str("from"), str("to"))
	case "undo":
		return "Undo the change " + str("changeId")
	}
	return ""
}

// prefixed puts prefix before each of the first max lines of text.
func prefixed(prefix, text string, max int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(&b, "  … %d more lines\n", len(lines)-max)
			break
		}
		b.WriteString(prefix + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// compactDiff shows old → new as a unified diff of lines, keeping the lines
// they share at the start and end as context, so a one-word change in a
// paragraph reads as one - and one + line.
func compactDiff(old, new string) string {
	a := strings.Split(old, "\n")
	b := strings.Split(new, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []string
	for _, l := range a[:pre] {
		out = append(out, "  "+l)
	}
	for _, l := range a[pre : len(a)-suf] {
		out = append(out, "- "+l)
	}
	for _, l := range b[pre : len(b)-suf] {
		out = append(out, "+ "+l)
	}
	for _, l := range a[len(a)-suf:] {
		out = append(out, "  "+l)
	}
	return strings.Join(out, "\n")
}
