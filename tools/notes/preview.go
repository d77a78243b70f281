package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"quire/kernel/tool"
)

// maxPreviewArgs bounds the arguments a preview is asked for: a note's
// whole content at most, and the JSON around it.
const maxPreviewArgs = maxNoteBytes + 64<<10

// Preview is what a proposed write would do to the note, before the user
// answers its question: the change the tool would make, computed by the
// tool's own code on a dry run of the root (every check, every read, the new
// text; no write, no folder made, nothing moved), so what the preview shows
// is what a yes would write. It refuses a tool that does not write notes and
// returns the tool's own refusal (an error wrapping its sentinel) when the
// write would be refused.
func (r *Root) Preview(ctx context.Context, name string, args json.RawMessage) (Change, error) {
	if len(args) > maxPreviewArgs {
		return Change{}, fail(tool.ErrInvalidArgs, "the arguments are %s, more than the %s a preview reads", humanSize(int64(len(args))), humanSize(maxPreviewArgs))
	}
	dry := &Root{dir: r.dir, fs: r.fs, dry: true, newID: func() string { return "preview" }, linker: r.linker}
	for _, t := range Tools(dry, nil) {
		nt := t.(*noteTool)
		if nt.spec.Name != name {
			continue
		}
		if nt.spec.Effects&tool.WriteFs == 0 {
			break
		}
		res, err := nt.run(ctx, tool.Call{ID: "preview", Name: name, Arguments: args})
		if err != nil {
			return Change{}, err
		}
		c, ok := DecodeChange(res.Data)
		if !ok {
			// A write that would change nothing (an edit whose find and
			// replace are the same, a folder that exists).
			return Change{}, fail(ErrNoChange, "%s", res.Content)
		}
		return c, nil
	}
	return Change{}, fail(ErrNotWrite, "%s does not change notes, so there is nothing to preview", name)
}

// Diff is a change as a person reads it: a unified diff of a write's lines
// (- before, + after, unchanged lines around them), "from → to" for a move
// (then the links it rewrote and each rewritten note's changed lines),
// a line for a folder. Lines beyond maxDiffLines are cut, said on the last.
func (c Change) Diff() string {
	switch c.Kind {
	case KindWrite:
		var before, after string
		if c.Before != nil {
			before = *c.Before
		}
		if c.After != nil {
			after = *c.After
		}
		switch {
		case c.Before == nil:
			return bounded(prefixed("+ ", after))
		case c.After == nil:
			return bounded(prefixed("- ", before))
		}
		return bounded(compactDiff(before, after, undoContext))
	case KindMove:
		if len(c.Edits) > 0 {
			return bounded(strings.TrimPrefix(relinkText(c.From, c.Path, c.Edits), "Move "))
		}
		return fmt.Sprintf("%s → %s", c.From, c.Path)
	case KindMakeFolder:
		return "+ the folder " + c.Path
	case KindRemoveFolder:
		return "- the folder " + c.Path
	}
	return ""
}

// Diff is the note's changed lines with a little context, bounded.
func (e FileEdit) Diff() string { return bounded(lineDiff(e.Before, e.After, relinkContext)) }
