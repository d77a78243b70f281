// Package notegraph is the model's view of the notes index: search_notes
// (ranked by words from the index), note_links (a note's backlinks,
// outgoing and unresolved links), vault_orphans and related_notes. Every
// tool only reads, may run alongside others, and bounds what it returns;
// a failure is a sentence the model can act on.
//
// It takes the index through the Graph interface (quire/vaultindex's
// *Index is one) and imports kernel/tool and vaultindex's shapes only:
// never a SQL driver, the runtime, hosts or Wails.
package notegraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"quire/kernel/tool"
	"quire/vault"
	"quire/vaultindex"
)

// Graph is what the tools need of the notes index.
type Graph interface {
	Search(ctx context.Context, q vaultindex.Query) ([]vaultindex.Hit, error)
	Links(path string) (vaultindex.Links, error)
	Orphans() []string
	Related(ctx context.Context, path string, n int) ([]vaultindex.Related, error)
	// MeaningNotice is a sentence about the meaning search for the user
	// (why it is off, once; how far the vectors are), or "".
	MeaningNotice() string
}

const (
	defaultLimit = 10
	maxLimit     = 50
	maxQuery     = 1000
	maxRefs      = 50 // links of each kind note_links lists
	timeout      = 15 * time.Second
)

// Tools are the four tools over g.
func Tools(g Graph) []tool.Tool {
	return []tool.Tool{searchNotes(g), noteLinks(g), orphans(g), related(g)}
}

type readTool struct {
	spec tool.Spec
	run  func(ctx context.Context, raw json.RawMessage) (tool.Result, error)
}

func (t *readTool) Spec() tool.Spec { return t.spec }

func (t *readTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	start := time.Now()
	res, err := t.run(ctx, call.Arguments)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{Status: tool.Failure, Content: sentence(t.spec.Name + ": " + err.Error())}, nil
	}
	res.Meta.DurationNS = int64(time.Since(start))
	return res, nil
}

func sentence(s string) string {
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func spec(name, desc string, params map[string]any, required ...string) tool.Spec {
	if required == nil {
		required = []string{}
	}
	return tool.Spec{Name: name, Description: desc, Effects: tool.ReadFs, Idempotency: tool.Safe, Timeout: timeout, Parallel: true,
		Parameters: map[string]any{"type": "object", "properties": params, "required": required, "additionalProperties": false}}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func limit() map[string]any {
	return map[string]any{"type": "integer", "minimum": 1, "maximum": maxLimit,
		"description": fmt.Sprintf("How many, 1 to %d (default %d).", maxLimit, defaultLimit)}
}

// decode reads arguments strictly: an unknown name is an error the model
// can correct.
func decode(raw json.RawMessage, dst any, shape string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("the arguments must be a JSON object %s: %v", shape, err)
	}
	return nil
}

func checkLimit(n *int) (int, error) {
	if n == nil {
		return defaultLimit, nil
	}
	if *n < 1 || *n > maxLimit {
		return 0, fmt.Errorf(`"limit" must be from 1 to %d, not %d`, maxLimit, *n)
	}
	return *n, nil
}

func checkPath(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(strings.ReplaceAll(p, `\`, "/")), "/")
	if p == "" {
		return "", errors.New(`"path" is required: a note's path relative to the notes folder, like projects/plan.md`)
	}
	return p, nil
}

// notFound says what to do when a path is not an indexed note.
func notFound(p string, err error) error {
	if errors.Is(err, vaultindex.ErrNotIndexed) {
		if !strings.HasSuffix(strings.ToLower(p), ".md") {
			return fmt.Errorf("%q is not an indexed note; give the path with its extension, like %s.md (search_notes finds paths)", p, p)
		}
		return fmt.Errorf("%q is not an indexed note; search_notes or list_notes finds the right path", p)
	}
	return err
}

func searchNotes(g Graph) tool.Tool {
	type args struct {
		Query  string   `json:"query"`
		Tags   []string `json:"tags"`
		Folder string   `json:"folder"`
		Limit  *int     `json:"limit"`
	}
	const shape = `{query, tags?, folder?, limit?}`
	s := spec("search_notes", "Search the user's notes by words and meaning, best first (titles, aliases and headings count most). "+
		"Gives each note's path, the line of the first match (or of the passage nearest in meaning) and a snippet.",
		map[string]any{
			"query":  map[string]any{"type": "string", "description": "Words to look for.", "minLength": 1, "maxLength": maxQuery},
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Only notes with every one of these tags (a tag includes its children)."},
			"folder": str("Only notes under this folder, like projects."),
			"limit":  limit(),
		}, "query")
	return &readTool{spec: s, run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
		var a args
		if err := decode(raw, &a, shape); err != nil {
			return tool.Result{}, err
		}
		a.Query = strings.TrimSpace(a.Query)
		if a.Query == "" {
			return tool.Result{}, errors.New(`"query" is empty; say what to look for`)
		}
		if n := len([]rune(a.Query)); n > maxQuery {
			return tool.Result{}, fmt.Errorf(`"query" is %d characters long; the most is %d`, n, maxQuery)
		}
		n, err := checkLimit(a.Limit)
		if err != nil {
			return tool.Result{}, err
		}
		hits, err := g.Search(ctx, vaultindex.Query{Text: a.Query, Tags: a.Tags, Folder: a.Folder, Limit: n})
		if err != nil {
			return tool.Result{}, fmt.Errorf("the search failed: %w", err)
		}
		data := SearchData{Query: a.Query, Hits: hits, Meaning: g.MeaningNotice()}
		if data.Hits == nil {
			data.Hits = []vaultindex.Hit{}
		}
		notice := ""
		if data.Meaning != "" {
			notice = "\n" + data.Meaning
		}
		if len(hits) == 0 {
			return tool.Result{Status: tool.Empty, Content: fmt.Sprintf("No note matches %q.", a.Query) + notice, Data: data}, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d notes for %q, best first:\n", len(hits), a.Query)
		for _, h := range hits {
			b.WriteString(h.Path)
			switch {
			case h.LexicalRank == 0 && h.MeaningRank > 0:
				fmt.Fprintf(&b, " (line %d, by meaning, similarity %.2f): %s", h.Line, h.Similarity, h.Snippet)
			case h.Line > 0:
				fmt.Fprintf(&b, " (line %d): %s", h.Line, h.Snippet)
			default:
				fmt.Fprintf(&b, ": %s (by its title, aliases or headings)", h.Title)
			}
			if len(h.Tags) > 0 {
				b.WriteString("  #" + strings.Join(h.Tags, " #"))
			}
			if h.Backlinks > 0 {
				fmt.Fprintf(&b, "  [%d backlinks]", h.Backlinks)
			}
			b.WriteByte('\n')
		}
		return tool.Result{Status: tool.Success, Content: strings.TrimRight(b.String(), "\n") + notice, Data: data}, nil
	}}
}

// SearchData is search_notes' Data.
type SearchData struct {
	Query   string           `json:"query"`
	Hits    []vaultindex.Hit `json:"hits"`
	Meaning string           `json:"meaning,omitempty"` // MeaningNotice, if any
}

// LinksData is note_links' Data: each list bounded, with its full count.
type LinksData struct {
	vaultindex.Links
	BacklinkCount   int `json:"backlinkCount"`
	OutgoingCount   int `json:"outgoingCount"`
	UnresolvedCount int `json:"unresolvedCount"`
}

func noteLinks(g Graph) tool.Tool {
	type args struct {
		Path string `json:"path"`
	}
	s := spec("note_links", "A note's backlinks (notes linking to it), its outgoing links with where each leads, and its unresolved links (to notes that do not exist).",
		map[string]any{"path": str("The note, like projects/plan.md.")}, "path")
	return &readTool{spec: s, run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
		var a args
		if err := decode(raw, &a, `{path}`); err != nil {
			return tool.Result{}, err
		}
		p, err := checkPath(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		l, err := g.Links(p)
		if err != nil {
			return tool.Result{}, notFound(p, err)
		}
		d := LinksData{Links: l, BacklinkCount: len(l.Backlinks), OutgoingCount: len(l.Outgoing), UnresolvedCount: len(l.Unresolved)}
		var b strings.Builder
		section := func(title string, refs []vault.Ref, line func(vault.Ref) string) []vault.Ref {
			fmt.Fprintf(&b, "%s (%d):\n", title, len(refs))
			for i, r := range refs {
				if i == maxRefs {
					fmt.Fprintf(&b, "  … and %d more\n", len(refs)-maxRefs)
					break
				}
				b.WriteString("  " + line(r) + "\n")
			}
			return refs[:min(len(refs), maxRefs)]
		}
		fmt.Fprintf(&b, "Links of %s.\n", p)
		d.Backlinks = section("Backlinks", l.Backlinks, func(r vault.Ref) string { return fmt.Sprintf("%s (line %d) %s", r.From, r.Link.Line, written(r)) })
		d.Outgoing = section("Outgoing", l.Outgoing, func(r vault.Ref) string {
			to := r.To
			if to == "" {
				to = "unresolved"
			}
			return fmt.Sprintf("line %d %s → %s", r.Link.Line, written(r), to)
		})
		d.Unresolved = section("Unresolved", l.Unresolved, func(r vault.Ref) string { return fmt.Sprintf("line %d %s", r.Link.Line, written(r)) })
		return tool.Result{Status: tool.Success, Content: strings.TrimRight(b.String(), "\n"), Data: d}, nil
	}}
}

// written is a link as the model can recognise it in the text.
func written(r vault.Ref) string {
	t := r.Link.Target
	if r.Link.Sub != "" {
		t += "#" + r.Link.Sub
	}
	if r.Link.Wiki {
		t = "[[" + t + "]]"
	} else {
		t = "(" + t + ")"
	}
	if r.Link.Embed {
		t = "!" + t
	}
	return t
}

// OrphansData is vault_orphans' Data.
type OrphansData struct {
	Orphans []string `json:"orphans"`
	Total   int      `json:"total"`
}

func orphans(g Graph) tool.Tool {
	type args struct {
		Folder string `json:"folder"`
		Limit  *int   `json:"limit"`
	}
	s := spec("vault_orphans", "Notes that no other note links to and that link nowhere, by path.",
		map[string]any{"folder": str("Only under this folder."), "limit": limit()})
	return &readTool{spec: s, run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
		var a args
		if err := decode(raw, &a, `{folder?, limit?}`); err != nil {
			return tool.Result{}, err
		}
		n, err := checkLimit(a.Limit)
		if err != nil {
			return tool.Result{}, err
		}
		folder := strings.Trim(a.Folder, "/")
		var all []string
		for _, p := range g.Orphans() {
			if folder == "" || strings.HasPrefix(p, folder+"/") {
				all = append(all, p)
			}
		}
		d := OrphansData{Orphans: all[:min(n, len(all))], Total: len(all)}
		if d.Orphans == nil {
			d.Orphans = []string{}
		}
		if len(all) == 0 {
			return tool.Result{Status: tool.Empty, Content: "No orphan note: every note links or is linked.", Data: d}, nil
		}
		content := fmt.Sprintf("%d orphan notes", len(all))
		if len(all) > n {
			content += fmt.Sprintf(" (the first %d)", n)
		}
		content += ":\n" + strings.Join(d.Orphans, "\n")
		return tool.Result{Status: tool.Success, Content: content, Data: d}, nil
	}}
}

// RelatedData is related_notes' Data.
type RelatedData struct {
	Path    string               `json:"path"`
	Related []vaultindex.Related `json:"related"`
}

func related(g Graph) tool.Tool {
	type args struct {
		Path  string `json:"path"`
		Limit *int   `json:"limit"`
	}
	s := spec("related_notes", "Notes related to a note, best first, each with why: links either way, shared links and backlinks, shared tags, shared words of its title and headings.",
		map[string]any{"path": str("The note, like projects/plan.md."), "limit": limit()}, "path")
	return &readTool{spec: s, run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
		var a args
		if err := decode(raw, &a, `{path, limit?}`); err != nil {
			return tool.Result{}, err
		}
		p, err := checkPath(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		n, err := checkLimit(a.Limit)
		if err != nil {
			return tool.Result{}, err
		}
		rel, err := g.Related(ctx, p, n)
		if err != nil {
			return tool.Result{}, notFound(p, err)
		}
		d := RelatedData{Path: p, Related: rel}
		if d.Related == nil {
			d.Related = []vaultindex.Related{}
		}
		if len(rel) == 0 {
			return tool.Result{Status: tool.Empty, Content: fmt.Sprintf("No note is related to %s by links, tags or words.", p), Data: d}, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d notes related to %s, best first:\n", len(rel), p)
		for _, r := range rel {
			fmt.Fprintf(&b, "%s: %s\n", r.Path, strings.Join(r.Reasons, "; "))
		}
		return tool.Result{Status: tool.Success, Content: strings.TrimRight(b.String(), "\n"), Data: d}, nil
	}}
}
