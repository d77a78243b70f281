package notes

import (
	"context"
	"fmt"
	"path"
	"strings"

	"quire/kernel/tool"
)

func linkNotes(r *Root) tool.Tool {
	type args struct {
		From string `json:"from"`
		To   string `json:"to"`
		Text string `json:"text"`
	}
	params := []param{
		{"from", true, str("Note to add the link to, like projects/plan.md.")},
		{"to", true, str("Note or file to link to, like people/ana.md.")},
		{"text", false, str("Link text; default: the linked note's name.")},
	}
	spec := writeSpec("link_notes", "Add a relative Markdown link to another note at the end of a note (nothing if it links there already).", tool.Unsafe)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		if strings.ContainsAny(a.Text, "\r\n") {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the link text must be one line; give a short title for the link")
		}
		unlock, err := r.lockWrite(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		defer unlock()
		from, old, err := r.openNote(a.From)
		if err != nil {
			return tool.Result{}, err
		}
		to, err := r.resolve(a.To)
		if err != nil {
			return tool.Result{}, err
		}
		if err := mustBeFile(to); err != nil {
			return tool.Result{}, err
		}
		if to.real == from.real {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the from and to arguments name the same note, %q; a note does not need a link to itself", from.rel)
		}
		dest := linkDest(path.Dir(from.real), to.entry)
		if strings.Contains(old, "]("+dest+")") {
			return tool.Result{Status: tool.Success, Content: fmt.Sprintf("%s already links to %s; nothing was changed.", from.rel, to.rel)}, nil
		}
		label := a.Text
		if strings.TrimSpace(label) == "" {
			label = strings.TrimSuffix(path.Base(to.rel), path.Ext(to.rel))
		}
		line := "[" + escapeLabel(strings.TrimSpace(label)) + "](" + dest + ")"
		nl := lineEnding(old)
		text := old
		if text != "" {
			if !strings.HasSuffix(text, "\n") {
				text += nl
			}
			if !strings.HasSuffix(text, "\n\n") && !strings.HasSuffix(text, "\n\r\n") {
				text += nl // a blank line: the link is its own paragraph
			}
		}
		text += line + nl
		c, err := r.rewrite(from, "link_notes", old, text)
		if err != nil {
			return tool.Result{}, err
		}
		return changed(c, "Added the link %s to the end of %s", line, from.rel), nil
	})
}

// linkDest is the relative link from a note in the folder dir to the file
// to (both relative to the root), each name escaped for a link destination.
func linkDest(dir, to string) string {
	var from []string
	if dir != "." {
		from = strings.Split(dir, "/")
	}
	dst := strings.Split(to, "/")
	common := 0
	for common < len(from) && common < len(dst)-1 && from[common] == dst[common] {
		common++
	}
	var parts []string
	for range from[common:] {
		parts = append(parts, "..")
	}
	for _, seg := range dst[common:] {
		parts = append(parts, escapeDest(seg))
	}
	return strings.Join(parts, "/")
}

// escapeDest percent-encodes what a Markdown link destination cannot hold
// as it is (spaces, brackets, parentheses) or would read as something else
// (% as an escape, # as a fragment, ? as a query). Other characters,
// letters of any script included, stay as they are.
func escapeDest(seg string) string {
	const special = " %()<>[]#?\\\"'`^{}|"
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; strings.IndexByte(special, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapeLabel escapes the characters that would end a link's text early.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}
