package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/tool"
)

// ProposeName is the worker's one tool that is not a read: it records the
// structured answer for the note (the Data of its result, in the worker's
// log), and changes nothing.
const ProposeName = "propose"

// Bounds on a proposal, so one answer cannot fill the review list.
const (
	maxTags      = 20
	maxTagBytes  = 64
	maxLinks     = 20
	maxReason    = 300 // bytes of the one-line reason
	maxPathBytes = 1024
)

// proposeTool records a worker's Proposal. It has no effects: the kernel
// runs it under the worker's minimal profile, and the proposal waits for the
// user's review.
type proposeTool struct{ q *Queue }

func (p proposeTool) Spec() tool.Spec {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	list := func(desc string, n int) map[string]any {
		return map[string]any{"type": "array", "description": desc, "maxItems": n, "items": map[string]any{"type": "string"}}
	}
	return tool.Spec{
		Name: ProposeName,
		Description: "Propose where the note belongs, its tags and links, with a one-line reason. It changes nothing: " +
			"the user reviews every proposal of the batch at once. Call it once, at the end.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path":   str("The note's new path, like projects/idea.md (keep its extension); empty to leave it where it is."),
				"tags":   list("Its tags, replacing the ones it has; empty to leave them.", maxTags),
				"links":  list("Notes it should link to, like people/ana.md.", maxLinks),
				"reason": str("One line: why."),
			},
			"required":             []string{"reason"},
			"additionalProperties": false,
		},
		Idempotency: tool.Safe,
		Timeout:     5 * time.Second,
	}
}

func (p proposeTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var prop protocol.Proposal
	if err := json.Unmarshal(call.Arguments, &prop); err != nil {
		return refused("The arguments of propose must be an object with path, tags, links and reason: %v.", err), nil
	}
	note, ok := p.q.noteOf(tool.SessionOf(ctx))
	if !ok {
		return refused("propose is only for a batch's worker, in the session of its task."), nil
	}
	if problem := p.q.check(note, &prop); problem != "" {
		return refused("%s", problem), nil
	}
	if problem := p.q.onDisk(prop); problem != "" {
		return refused("%s", problem), nil
	}
	to := prop.Path
	if to == "" {
		to = "where it is"
	}
	return tool.Result{Status: tool.Success, Content: fmt.Sprintf("Proposed for %s: %s. The user reviews it with the rest of the batch.", note, to), Data: prop}, nil
}

func refused(format string, args ...any) tool.Result {
	return tool.Result{Status: tool.Failure, Content: fmt.Sprintf(format, args...)}
}

// check cleans a proposal for note in place, or says (to the model) what is
// wrong with it.
func (q *Queue) check(note string, p *protocol.Proposal) string {
	p.Path = strings.TrimSpace(p.Path)
	if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
		// As the notes tools read it, so one path has one spelling when
		// it is compared: with the note's own (it stays), with another
		// item's (two notes to one place).
		p.Path = path.Clean(p.Path)
	}
	p.Reason = strings.Join(strings.Fields(p.Reason), " ")
	if p.Path == note {
		p.Path = ""
	}
	switch {
	case p.Reason == "":
		return "Give a one-line reason for the proposal."
	case len(p.Reason) > maxReason:
		return fmt.Sprintf("The reason is %d bytes; keep it to one line of at most %d.", len(p.Reason), maxReason)
	case len(p.Path) > maxPathBytes:
		return fmt.Sprintf("The path is longer than %d bytes; choose a shorter one.", maxPathBytes)
	}
	if p.Path != "" {
		if !strings.EqualFold(path.Ext(p.Path), path.Ext(note)) {
			return fmt.Sprintf("The new path %s must keep the note's %s extension, like %s%s.", p.Path, path.Ext(note), strings.TrimSuffix(p.Path, path.Ext(p.Path)), path.Ext(note))
		}
		if _, err := q.notes.Resolve(p.Path); err != nil {
			return fmt.Sprintf("The path %s cannot be used: %v.", p.Path, err)
		}
	}
	tags, problem := cleanList(p.Tags, maxTags, maxTagBytes, "tag")
	if problem != "" {
		return problem
	}
	links, problem := cleanList(p.Links, maxLinks, maxPathBytes, "link")
	if problem != "" {
		return problem
	}
	for _, l := range links {
		if _, err := q.notes.Resolve(l); err != nil {
			return fmt.Sprintf("The link %s cannot be used: %v.", l, err)
		}
	}
	p.Tags, p.Links = tags, links
	return ""
}

// onDisk says (to the model) what in a checked proposal the notes folder
// would refuse when the user applies it: a destination that exists, a link
// to a note that does not. The user's own edits meet the same refusals when
// applied (and the whole answer is then put back).
func (q *Queue) onDisk(p protocol.Proposal) string {
	if p.Path != "" {
		if abs, err := q.notes.Resolve(p.Path); err == nil {
			if _, err := os.Lstat(abs); err == nil {
				return fmt.Sprintf("%s already exists, and a note is never moved over another; propose another name.", p.Path)
			}
		}
	}
	for _, l := range p.Links {
		abs, err := q.notes.Resolve(l)
		if err != nil {
			continue // check refused it already
		}
		if info, err := os.Stat(abs); err != nil || info.IsDir() {
			return fmt.Sprintf("There is no note %s to link to; link only to notes that exist (list_notes, find_notes).", l)
		}
	}
	return ""
}

// cleanList trims and de-duplicates items, within bounds.
func cleanList(in []string, most, bytes int, what string) ([]string, string) {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimPrefix(strings.TrimSpace(s), "#")
		if s == "" || seen[s] {
			continue
		}
		if len(s) > bytes || strings.ContainsAny(s, "\r\n") {
			return nil, fmt.Sprintf("The %s %.40q is too long or has a line break; keep each to one line of at most %d bytes.", what, s, bytes)
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) > most {
		return nil, fmt.Sprintf("Propose at most %d %ss, not %d.", most, what, len(out))
	}
	return out, ""
}
