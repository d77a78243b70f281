// Package searchdocs is the search_docs tool: the model's way into the
// documents the user added to Quire. It validates the model's arguments
// strictly (a readable error, never a guess), searches the rag index, and
// gives the model numbered passages with citations —
//
//	[1] notes/plan.md › Goals › Budget (lines 12–30): snippet
//
// — while Data carries the same hits, structured, for the UI. With a
// notes folder (Notes, given by the composition root) it also searches
// the user's notes by words and fuses the two rankings (rag.RRF), a note
// cited by its path and line like a passage.
//
// It imports kernel/tool, kernel/protocol (the citation shapes) and rag only. It must never import a SQL driver,
// the Ollama client, the kernel runtime, hosts or Wails.
package searchdocs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/rag"
)

// Name is the tool's name.
const Name = "search_docs"

const (
	defaultLimit = 5
	maxLimit     = 20
	maxQuery     = 1000
)

// Searcher is what the tool needs of the index; *rag.Index is one.
type Searcher interface {
	Search(ctx context.Context, query string, n int) ([]rag.Hit, error)
	Embedder() string
}

// NoteHit is one note found by words: its path relative to the notes
// folder, its path on disk (for the viewer), the 1-based line of the
// first match (0: matched by title, alias or heading only) and a snippet.
type NoteHit struct {
	Path, Abs string
	Line      int
	Snippet   string
	Score     float64
}

// Notes is the notes folder's index as search_docs needs it, best first;
// assembly adapts vaultindex.Index to it (this package never imports
// a SQL driver).
type Notes interface {
	SearchNotes(ctx context.Context, query string, n int) ([]NoteHit, error)
}

// Tool is search_docs.
type Tool struct {
	s     Searcher // nil: no document is indexed, only the notes are searched
	notes Notes    // nil: no notes folder with an index
}

// New returns the tool over s.
func New(s Searcher) *Tool { return &Tool{s: s} }

// WithNotes returns the tool over s (nil when no document is indexed)
// that also searches n unless the model says include_notes: false.
func WithNotes(s Searcher, n Notes) *Tool { return &Tool{s: s, notes: n} }

// InputSchema is the JSON Schema of the arguments.
func InputSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"query": map[string]any{
				"type":        "string",
				"description": "Words, a question or a statement.",
				"minLength":   1,
				"maxLength":   maxQuery,
			},
			"limit": map[string]any{
				"type":        "integer",
				"description": fmt.Sprintf("Passages, 1 to %d (default %d).", maxLimit, defaultLimit),
				"minimum":     1,
				"maximum":     maxLimit,
			},
			"include_notes": map[string]any{
				"type":        "boolean",
				"description": "Also search the user's own notes (default true when a notes folder is chosen); false for the documents only.",
			},
		},
		"required":             []any{"query"},
		"additionalProperties": false,
	}
}

// OutputSchema is the JSON Schema of Result.Data.
func OutputSchema() map[string]any {
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"query":    str,
			"embedder": map[string]any{"type": "string", "description": "which embedder made the vectors"},
			"hits": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"n":           map[string]any{"type": "integer", "description": "the number the model cites, [n]"},
						"path":        str,
						"name":        map[string]any{"type": "string", "description": "the path as shown: relative to the parent of its watched folder"},
						"headings":    map[string]any{"type": "array", "items": str},
						"startLine":   integer,
						"endLine":     integer,
						"snippet":     str,
						"score":       map[string]any{"type": "number"},
						"lexicalRank": map[string]any{"type": "integer", "description": "rank by words (FTS5 bm25); 0 = not found that way"},
						"vectorRank":  map[string]any{"type": "integer", "description": "rank by vector similarity; 0 = not found that way"},
						"matched":     map[string]any{"type": "array", "items": str, "description": "the query's words found in the passage"},
						"similarity":  map[string]any{"type": "number", "description": "cosine similarity to the query under an embedding model; absent with the built-in embedder"},
					},
					"required": []any{"n", "path", "name", "startLine", "endLine", "snippet", "score", "lexicalRank", "vectorRank"},
				},
			},
		},
		"required": []any{"query", "embedder", "hits"},
	}
}

// Spec declares the tool: it reads files (the index of them), has no
// effect, and may run alongside other calls.
func (t *Tool) Spec() tool.Spec {
	what := "Search the user's documents by words and meaning."
	if t.notes != nil {
		what = "Search the user's documents by words and meaning, and their notes by words (include_notes: false for documents only)."
	}
	return tool.Spec{
		Name: Name,
		Description: what + " Returns numbered passages with file and lines: " +
			"cite them as [1], [2]; say so when nothing relevant was found.",
		Parameters:  InputSchema(),
		Effects:     tool.ReadFs,
		Idempotency: tool.Safe,
		Timeout:     30 * time.Second,
		Parallel:    true,
	}
}

// Data is Result.Data: the query, the embedder and the hits (the shape
// hosts show, kernel/protocol's SearchResult).
type Data = protocol.SearchResult

// Citation is one hit as the tool reports it (protocol.Citation); its Line
// is how the model reads it.
type Citation = protocol.Citation

// Citations numbers hits from 1.
func Citations(hits []rag.Hit) []Citation {
	out := make([]Citation, len(hits))
	for i, h := range hits {
		out[i] = Citation{N: i + 1, Path: h.Path, Name: h.Name, Headings: h.HeadingPath, StartLine: h.StartLine, EndLine: h.EndLine,
			Snippet: h.Snippet, Score: h.Score, LexicalRank: h.LexicalRank, VectorRank: h.VectorRank, Matched: h.Matched, Similarity: h.Similarity}
	}
	return out
}

// Render is the text the model reads for these citations.
func Render(query string, cs []Citation) string { return render(query, cs, false) }

func render(query string, cs []Citation, withNotes bool) string {
	where := "the user's documents"
	if withNotes {
		where = "the user's documents and notes"
	}
	if len(cs) == 0 {
		return fmt.Sprintf("No passage in %s matches %q. There is nothing to cite: say so, and do not cite a document for it.", where, query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d passages from %s for %q (cite them as [n]):\n", len(cs), where, query)
	for _, c := range cs {
		b.WriteString(c.Line())
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

type args struct {
	Query        string
	Limit        int
	IncludeNotes bool
}

// parseArgs validates the model's arguments against InputSchema, with
// errors a model can act on.
func parseArgs(raw json.RawMessage) (args, error) {
	a := args{Limit: defaultLimit, IncludeNotes: true}
	if len(bytes.TrimSpace(raw)) == 0 {
		return a, errors.New(`search_docs needs arguments: {"query": "what to look for"}`)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return a, fmt.Errorf(`search_docs: the arguments must be a JSON object such as {"query": "budget 2025", "limit": 5}; got %s`, clip(string(raw), 80))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "query" && k != "limit" && k != "include_notes" {
			return a, fmt.Errorf(`search_docs: unknown argument %q; it takes "query" (required), "limit" and "include_notes"`, k)
		}
	}
	q, ok := m["query"]
	if !ok {
		return a, errors.New(`search_docs: "query" is required: a non-empty string of what to look for`)
	}
	if err := json.Unmarshal(q, &a.Query); err != nil {
		return a, fmt.Errorf(`search_docs: "query" must be a string, got %s`, clip(string(q), 40))
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return a, errors.New(`search_docs: "query" is empty; say what to look for`)
	}
	if n := len([]rune(a.Query)); n > maxQuery {
		return a, fmt.Errorf(`search_docs: "query" is %d characters long; the most is %d`, n, maxQuery)
	}
	if l, ok := m["limit"]; ok && string(l) != "null" {
		var f float64
		if err := json.Unmarshal(l, &f); err != nil || f != math.Trunc(f) || f < 1 || f > maxLimit {
			return a, fmt.Errorf(`search_docs: "limit" must be a whole number from 1 to %d, got %s`, maxLimit, clip(string(l), 40))
		}
		a.Limit = int(f)
	}
	if v, ok := m["include_notes"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &a.IncludeNotes); err != nil {
			return a, fmt.Errorf(`search_docs: "include_notes" must be true or false, got %s`, clip(string(v), 40))
		}
	}
	return a, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Run searches. Bad arguments and a failed search are failures whose
// Content tells the model what went wrong; no match is Empty.
func (t *Tool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	start := time.Now()
	a, err := parseArgs(call.Arguments)
	if err != nil {
		return tool.Result{Status: tool.Failure, Content: err.Error()}, nil
	}
	var hits []rag.Hit
	embedder := ""
	if t.s != nil {
		embedder = t.s.Embedder()
		if hits, err = t.s.Search(ctx, a.Query, a.Limit); err != nil {
			return t.failed(ctx, err)
		}
	}
	cs := Citations(hits)
	withNotes := t.notes != nil && a.IncludeNotes
	if withNotes {
		ns, err := t.notes.SearchNotes(ctx, a.Query, a.Limit)
		if err != nil {
			return t.failed(ctx, err)
		}
		cs = fuse(cs, ns, a.Limit)
	}
	res := tool.Result{
		Status:  tool.Success,
		Content: render(a.Query, cs, withNotes),
		Data:    Data{Query: a.Query, Embedder: embedder, Hits: cs},
		Meta:    tool.Meta{DurationNS: int64(time.Since(start))},
	}
	if len(cs) == 0 {
		res.Status = tool.Empty
	}
	return res, nil
}

func (t *Tool) failed(ctx context.Context, err error) (tool.Result, error) {
	if ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	return tool.Result{Status: tool.Failure, Content: "search_docs: the search failed: " + err.Error()}, nil
}

// rrfK is rag's default fusion constant: the two rankings fuse as rag
// fuses its own two.
const rrfK = 60

// fuse merges the documents' passages and the notes' hits by Reciprocal
// Rank Fusion (rag.RRF; ties go to the documents) and numbers the result
// from 1. Notes take at most half the places (at least one) while there
// are passages to fill the rest, so a question about the documents is
// not drowned by notes that share a word; with fewer passages the notes
// fill the list.
func fuse(docs []Citation, notes []NoteHit, limit int) []Citation {
	// ids: documents 1…, notes −1…; rag.RRF needs distinct ids.
	di := make([]int64, len(docs))
	for i := range docs {
		di[i] = int64(i + 1)
	}
	ni := make([]int64, len(notes))
	for i := range notes {
		ni[i] = -int64(i + 1)
	}
	capNotes := max(1, limit/2)
	var out, spare []Citation
	taken := 0
	for _, id := range rag.RRF(rrfK, di, ni) {
		if id > 0 {
			out = append(out, docs[id-1])
			continue
		}
		c := noteCitation(notes[-id-1], int(-id))
		if taken < capNotes {
			out = append(out, c)
			taken++
		} else {
			spare = append(spare, c)
		}
	}
	out = append(out, spare...)
	if len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// noteCitation cites a note like a passage. Its Name says "note" and the
// path the note tools take, so the model (and the user reading the
// citation) knows it for one of their own notes.
func noteCitation(h NoteHit, rank int) Citation {
	path := h.Abs
	if path == "" {
		path = h.Path
	}
	return Citation{Path: path, Name: "note " + h.Path, StartLine: h.Line, EndLine: h.Line, Snippet: h.Snippet,
		Score: h.Score, LexicalRank: rank}
}
