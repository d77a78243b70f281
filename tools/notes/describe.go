package notes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"quire/kernel/tool"
)

// Describe says what a call would do, for the permission question: for an
// edit a unified diff, for a move "from → to", for a new note or an append
// every line of its text. Nothing is elided: the user says yes to exactly
// what is shown, so a line hidden after the first few (a command pasted at
// the end of a note) would be a yes to text nobody saw. How much of it a
// dialog can show is the host's business. It reads only the call, except
// for two: undo's describer reads the change log (describeUndo), and
// move_note's reads the notes, since the links a move rewrites depend on
// them now (describeMove, which also holds the yes to what it showed).
func (t *noteTool) Describe(call tool.Call) string {
	var a map[string]any
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return ""
	}
	desc := t.describeArgs(a)
	if t.describeCall != nil {
		desc = t.describeCall(call)
	}
	if warn := refusedName(a); warn != "" && desc != "" {
		return warn + "\n" + desc
	}
	return desc
}

// refusedName is the warning a question carries when a name it shows is one
// the tool will refuse (a word mixing Latin with Cyrillic look-alikes, an
// invisible character): such a name can read as another in the question, so
// the question says so first rather than let the user weigh a look-alike.
// The check is the tool's own (cleanRel), on the call alone.
func refusedName(a map[string]any) string {
	for _, k := range []string{"path", "from", "to"} {
		if p, ok := a[k].(string); ok && p != "" {
			if _, err := cleanRel(p); err != nil {
				return "⚠ Quire will refuse this, whatever you answer: " + strings.TrimSuffix(err.Error(), ".") + "."
			}
		}
	}
	return ""
}

func (t *noteTool) describeArgs(a map[string]any) string {
	str := func(k string) string { s, _ := a[k].(string); return s }
	switch t.spec.Name {
	case "create_note":
		return fmt.Sprintf("Create %s:\n%s", str("path"), prefixed("+ ", str("content")))
	case "append_note":
		return fmt.Sprintf("Add to the end of %s:\n%s", str("path"), prefixed("+ ", str("text")))
	case "edit_note":
		return fmt.Sprintf("Change %s:\n%s", str("path"), compactDiff(str("find"), str("replace"), -1))
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
		if text := str("text"); text != "" {
			return fmt.Sprintf("Add to %s a link to %s, with the text: %s", str("from"), str("to"), text)
		}
		return fmt.Sprintf("Add to %s a link to %s", str("from"), str("to"))
	case "undo":
		if t.describe != nil {
			return t.describe(str("changeId"))
		}
		return "Undo the change " + str("changeId")
	}
	return ""
}

// prefixed puts prefix before every line of text.
func prefixed(prefix, text string) string {
	if text == "" {
		return "  (no text)"
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// describeTimeout bounds the change-log lookup of an undo's question: the
// question waits for it, and a log that cannot answer in this time gets a
// question that says so.
const describeTimeout = 5 * time.Second

// describeUndo says what undoing the change id does: which note, what comes
// back and what is discarded. The change log is append-only and a change id
// names one fixed change, so this is as pure as a description over the
// call: the same call is described the same way, live or replayed.
func describeUndo(log ChangeLog, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), describeTimeout)
	defer cancel()
	c, err := log.Change(ctx, id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return fmt.Sprintf("Undo the change %s. It is not in the change log, so the undo will fail and change nothing.", id)
		}
		return fmt.Sprintf("Undo the change %s. Quire could not look it up (%v), so it cannot say here what the undo would change; answer No if you are not sure.", id, err)
	}
	return UndoText(c)
}

// UndoText is the question an undo of c puts to the user, whole: which
// note, what comes back and what is discarded (the undo tool's question and
// the Changes list's confirmation are this one text).
func UndoText(c Change) string {
	head := fmt.Sprintf("Undo the change %s (%s)", c.ID, c.Tool)
	switch c.Kind {
	case KindWrite:
		switch {
		case c.Before == nil && c.After != nil:
			return fmt.Sprintf("%s: remove %s, which it created. Its text is discarded:\n%s", head, c.Path, prefixed("- ", *c.After))
		case c.After == nil && c.Before != nil:
			return fmt.Sprintf("%s: make %s again, which it removed, with this text:\n%s", head, c.Path, prefixed("+ ", *c.Before))
		case c.Before != nil && c.After != nil:
			return fmt.Sprintf("%s: give %s back the text it had before (- is discarded, + is restored):\n%s", head, c.Path, compactDiff(*c.After, *c.Before, undoContext))
		}
		return fmt.Sprintf("%s on %s", head, c.Path)
	case KindMove:
		if len(c.Edits) > 0 {
			return fmt.Sprintf("%s: move %s back to %s, and give %s back the text they had before (- is discarded, + is restored):%s", head, c.Path, c.From, plural(len(c.Edits), "note", "notes"), editDiffs(c.Edits, true))
		}
		return fmt.Sprintf("%s: move %s back to %s", head, c.Path, c.From)
	case KindMakeFolder:
		return fmt.Sprintf("%s: remove the folder %s, if it is still empty", head, c.Path)
	case KindRemoveFolder:
		return fmt.Sprintf("%s: make the empty folder %s again", head, c.Path)
	}
	return fmt.Sprintf("%s on %s", head, c.Path)
}

// undoContext is how many unchanged lines an undo's diff keeps around what
// it changes: an undo restores a whole note, and its unchanged lines are
// not part of what is discarded or restored.
const undoContext = 3

// compactDiff shows old → new as a unified diff of lines, keeping the lines
// they share at the start and end as context, so a one-word change in a
// paragraph reads as one - and one + line. keep bounds the shared lines
// shown on each side (fewer are said as "… N unchanged lines"); below 0,
// all are shown.
func compactDiff(old, new string, keep int) string {
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
	head := a[:pre]
	if keep >= 0 && len(head) > keep {
		out = append(out, fmt.Sprintf("  … %d unchanged lines", len(head)-keep))
		head = head[len(head)-keep:]
	}
	for _, l := range head {
		out = append(out, "  "+l)
	}
	for _, l := range a[pre : len(a)-suf] {
		out = append(out, "- "+l)
	}
	for _, l := range b[pre : len(b)-suf] {
		out = append(out, "+ "+l)
	}
	tail := a[len(a)-suf:]
	rest := 0
	if keep >= 0 && len(tail) > keep {
		tail, rest = tail[:keep], len(tail)-keep
	}
	for _, l := range tail {
		out = append(out, "  "+l)
	}
	if rest > 0 {
		out = append(out, fmt.Sprintf("  … %d unchanged lines", rest))
	}
	return strings.Join(out, "\n")
}

// relinkText is a move with the links it rewrites, as the question and the
// change's diff show it: the move, how many links in how many notes, then
// each note's changed lines with a little context.
func relinkText(from, to string, edits []FileEdit) string {
	move := fmt.Sprintf("Move %s → %s", from, to)
	if len(edits) == 0 {
		return move
	}
	links := 0
	for _, e := range edits {
		links += e.Links
	}
	return fmt.Sprintf("%s\nand updates %s in %s:%s", move, plural(links, "link", "links"), plural(len(edits), "note", "notes"), editDiffs(edits, false))
}

// editDiffs is each edited note's diff (reverse: from after back to
// before), headed by its path.
func editDiffs(edits []FileEdit, reverse bool) string {
	var b strings.Builder
	for _, e := range edits {
		name, old, new := e.Path, e.Before, e.After
		if reverse {
			old, new = new, old
		}
		if e.NewPath != "" && e.NewPath != e.Path {
			name = fmt.Sprintf("%s (→ %s)", e.Path, e.NewPath)
		}
		fmt.Fprintf(&b, "\n\n%s:\n%s", name, lineDiff(old, new, relinkContext))
	}
	return b.String()
}

// relinkContext is how many unchanged lines a relinked note's diff keeps
// around each changed line: enough to see where the link sits.
const relinkContext = 1

// lineDiff shows old → new as hunks of changed lines, each with keep
// unchanged lines around it, when the two have the same lines but for
// some changed in place (a rewritten link never adds or removes a line);
// otherwise it is compactDiff.
func lineDiff(old, new string, keep int) string {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	if len(a) != len(b) {
		return compactDiff(old, new, keep)
	}
	var out []string
	shown := 0 // lines before this one are shown or counted
	skip := func(to int) {
		if to > shown {
			out = append(out, fmt.Sprintf("  … %s", plural(to-shown, "unchanged line", "unchanged lines")))
			shown = to
		}
	}
	for i := 0; i < len(a); {
		if a[i] == b[i] {
			i++
			continue
		}
		end := i // the run of changed lines is a[i:end]
		for end < len(a) && a[end] != b[end] {
			end++
		}
		skip(max(i-keep, shown))
		for j := shown; j < i; j++ {
			out = append(out, "  "+a[j])
		}
		for j := i; j < end; j++ {
			out = append(out, "- "+a[j])
		}
		for j := i; j < end; j++ {
			out = append(out, "+ "+b[j])
		}
		next := end // the context after, up to the next change
		for next < len(a) && next < end+keep && a[next] == b[next] {
			out = append(out, "  "+a[next])
			next++
		}
		shown, i = next, next
	}
	if len(out) == 0 {
		return compactDiff(old, new, keep)
	}
	skip(len(a))
	return strings.Join(out, "\n")
}
