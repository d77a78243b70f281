package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// Document states, as protocol.Document.Status says them.
const (
	statusDone    = "done"
	statusFailed  = "failed"
	statusSkipped = "skipped"
)

// noSpace is what `quire index` says when the disk had no room for the
// index, where the driver says only "database or disk is full (13)".
const noSpace = "the disk is full, so the index could not be saved. Free some space on the disk that holds the data folder (`quire doctor` names it), then run this again: what was indexed is kept and the rest resumes."

// runIndex is `quire index PATH...`: it makes the paths watched roots,
// brings the index up to date with a progress bar on stderr, and prints a
// summary on stdout: the files indexed and not, every failed file with
// its reason, and the skipped ones (a format Quire does not read) as one
// line of their extensions, never as failures. Exit status:
// 0 when the pass completed (even if some files were refused), 1 when it
// did not (a missing path, a database error, an interrupt: the work done
// is kept and the next run resumes it), 2 for a usage error. It owns the
// data folder while it runs (it writes the index) — unless the window or
// `quire serve` owns it: then the owner indexes, over its local channel,
// with the same progress bar, summary and statuses.
func runIndex(ctx context.Context, paths []string, env Env) int {
	if len(paths) == 0 {
		fmt.Fprintln(env.Stderr, "usage: quire index PATH...   (folders or files: Markdown, text, HTML, PDF)")
		return 2
	}
	p, err := env.Own(ctx)
	var inUse *datadir.InUseError
	if errors.As(err, &inUse) {
		return indexThroughOwner(ctx, inUse.Holder, paths, env)
	}
	return withIndex(ctx, p, err, env, func(idx host.Index) int { return index(ctx, idx, paths, env.Stdout, env.Stderr) })
}

// Indexer is what `quire index` needs of a document index: its own
// (host.Index) or the running owner's.
type Indexer interface {
	// Embedder names what makes the vectors, for people.
	Embedder() string
	// Index makes paths watched roots and brings them up to date.
	Index(ctx context.Context, paths []string, progress func(protocol.IndexProgress)) error
	Documents(ctx context.Context) ([]protocol.Document, error)
}

// indexThroughOwner has the process that owns the data folder index the
// paths (made absolute: the owner has no working folder of ours).
func indexThroughOwner(ctx context.Context, h datadir.Holder, paths []string, env Env) int {
	if h.Kind == datadir.Index || env.Running == nil {
		fmt.Fprintf(env.Stderr, "quire: %s is indexing this data folder; run this again when it has finished.\n", h)
		return 1
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return 1
		}
		abs[i] = a
	}
	idx, err := env.Running(ctx)
	if err != nil {
		fmt.Fprintf(env.Stderr, "quire: this data folder is owned by %s, which did not answer (%v). If it is stuck, end it and run this again.\n", h, err)
		return 1
	}
	fmt.Fprintf(env.Stderr, "This data folder is owned by %s; it indexes the files.\n", h)
	return index(ctx, idx, abs, env.Stdout, env.Stderr)
}

// withIndex runs f on the document index of the parts just opened (or
// says why they did not open) and closes them.
func withIndex(ctx context.Context, p Parts, err error, env Env, f func(host.Index) int) int {
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	idx, err := p.Index(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	return f(idx)
}

func index(ctx context.Context, idx Indexer, paths []string, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "Embeddings: %s\n", idx.Embedder())
	bar := &progressBar{statusLine: statusLine{w: stderr}}
	start := time.Now()
	err := idx.Index(ctx, paths, bar.show)
	bar.end()
	var last protocol.IndexProgress
	if bar.seen {
		last = bar.last
	}
	took := time.Since(start).Round(time.Millisecond)
	docs, derr := idx.Documents(ctx)
	if derr != nil {
		fmt.Fprintln(stderr, "quire index:", derr)
		return 1
	}
	var indexed, pending int
	var failed, skipped []protocol.Document
	for _, d := range docs {
		if !inRoots(d.Path, paths) {
			continue
		}
		switch d.Status {
		case statusDone:
			indexed++
		case statusFailed:
			failed = append(failed, d)
		case statusSkipped:
			skipped = append(skipped, d)
		default:
			pending++
		}
	}
	fmt.Fprintf(stdout, "%d files indexed, %d not indexed", indexed, len(failed))
	if pending > 0 {
		fmt.Fprintf(stdout, ", %d unfinished", pending)
	}
	if last.Total == 0 && err == nil {
		fmt.Fprintf(stdout, " (nothing changed; %s)\n", took)
	} else {
		fmt.Fprintf(stdout, " (%d processed in %s)\n", last.Total, took)
	}
	for _, d := range failed {
		fmt.Fprintf(stdout, "  %s: %s\n", d.Path, d.Reason)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(stdout, "%d skipped: Quire does not read %s\n", len(skipped), extensions(skipped))
	}
	if err != nil {
		if errors.Is(err, protocol.ErrNoSpace) {
			fmt.Fprintln(stderr, "quire index:", noSpace)
			return 1
		}
		fmt.Fprintln(stderr, "quire index:", err)
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "Stopped; run it again to resume where it stopped.")
		}
		return 1
	}
	return 0
}

// extensions lists the skipped files' extensions, the commonest first:
// ".yml, .json".
func extensions(docs []protocol.Document) string {
	n := map[string]int{}
	var exts []string
	for _, d := range docs {
		e := strings.ToLower(filepath.Ext(d.Path))
		if n[e] == 0 {
			exts = append(exts, e)
		}
		n[e]++
	}
	slices.SortFunc(exts, func(a, b string) int { return cmp.Or(n[b]-n[a], strings.Compare(a, b)) })
	return strings.Join(exts, ", ")
}

// inRoots reports whether path is one of roots or inside one.
func inRoots(path string, roots []string) bool {
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if path == abs || strings.HasPrefix(path, strings.TrimSuffix(abs, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// progressBar redraws one line: "[#####.....] 120/5183  2 failed  ETA 3s  notes/plan.md".
type progressBar struct {
	statusLine
	last protocol.IndexProgress
	seen bool
}

const barWidth = 24

func (b *progressBar) show(p protocol.IndexProgress) {
	b.last, b.seen = p, true
	if p.Phase != protocol.PhaseIndexing || p.Total == 0 {
		return
	}
	filled := barWidth * p.Done / p.Total
	line := fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), p.Done, p.Total)
	if p.Failed > 0 {
		line += fmt.Sprintf("  %d failed", p.Failed)
	}
	if p.ETAMillis > 0 {
		line += fmt.Sprintf("  ETA %s", (time.Duration(p.ETAMillis) * time.Millisecond).Round(time.Second))
	}
	if p.CurrentFile != "" {
		name := filepath.Base(p.CurrentFile)
		if len(name) > 40 {
			name = name[:37] + "..."
		}
		line += "  " + name
	}
	b.draw(line)
}

// statusLine is one line of a terminal redrawn in place, and cleared at
// the end (the bars of `quire index` and `quire pull`).
type statusLine struct {
	w     io.Writer
	drawn bool
}

func (l *statusLine) draw(line string) {
	fmt.Fprintf(l.w, "\r%-100s", line)
	l.drawn = true
}

func (l *statusLine) end() {
	if l.drawn {
		fmt.Fprintf(l.w, "\r%-100s\r", "")
	}
}

// searchOptions are the flags of `quire search`.
type searchOptions struct {
	n    int
	json bool
	mode string
}

func (o *searchOptions) register(fset *flag.FlagSet) {
	fset.IntVar(&o.n, "n", 8, "how many hits")
	fset.BoolVar(&o.json, "json", false, "print JSON; with the query -, read one query a line from standard input and print one JSON line each")
	fset.StringVar(&o.mode, "mode", "", "ranking: lexical, vector or hybrid (default: the default ranking, as search_docs)")
}

const searchUsage = "usage: quire search [-n N] [-json] [-mode lexical|vector|hybrid] QUERY   (or -json - to read queries from standard input)"

// run is `quire search QUERY`, a reader: it never writes to the database.
// `quire search -json -` answers every line of standard input.
func (o *searchOptions) run(ctx context.Context, args []string, env Env) int {
	query := strings.Join(args, " ")
	mode := protocol.SearchMode(o.mode)
	switch {
	case strings.TrimSpace(query) == "":
		fmt.Fprintln(env.Stderr, searchUsage)
		return 2
	case !mode.Valid() || mode == protocol.SearchDefault && o.mode != "":
		fmt.Fprintf(env.Stderr, "quire search: -mode %q: choose lexical, vector or hybrid (or leave it out for the default ranking)\n", o.mode)
		return 2
	case query == "-" && !o.json:
		fmt.Fprintln(env.Stderr, "quire search: reading queries from standard input (-) needs -json: one JSON line a query")
		return 2
	}
	p, err := env.Read(ctx)
	return withIndex(ctx, p, err, env, func(idx host.Index) int {
		if query == "-" {
			return searchLines(ctx, idx, env.Stdin, o.n, mode, env.Stdout, env.Stderr)
		}
		return search(ctx, idx, query, o.n, mode, o.json, env.Stdout, env.Stderr)
	})
}

// search prints the n best passages with their citations, as the model
// sees them, or as JSON (search_docs' Data) with jsonOut. Exit status: 0
// with hits; 1 when no passage matches (it says so on stderr) or on an
// error; 2 for a usage error.
func search(ctx context.Context, idx host.Index, query string, n int, mode protocol.SearchMode, jsonOut bool, stdout, stderr io.Writer) int {
	if strings.TrimSpace(query) == "" {
		fmt.Fprintln(stderr, searchUsage)
		return 2
	}
	cs, err := idx.Search(ctx, query, n, mode)
	if err != nil {
		fmt.Fprintln(stderr, "quire search:", err)
		return 1
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(protocol.SearchResult{Query: query, Embedder: idx.Embedder(), Hits: cs}); err != nil {
			fmt.Fprintln(stderr, "quire search:", err)
			return 1
		}
	} else {
		for _, c := range cs {
			fmt.Fprintln(stdout, c.Line())
		}
	}
	if msg := idx.VectorError(); msg != "" {
		fmt.Fprintln(stderr, "quire search: ranked by words only; the vector search failed:", msg)
	}
	if len(cs) == 0 {
		fmt.Fprintf(stderr, "No passage matches %q: no indexed document has its words. Try other words, or `quire index PATH` to add documents.\n", query)
		return 1
	}
	return 0
}

// maxQueryLine bounds one line of `quire search -json -`.
const maxQueryLine = 64 << 10

// lineHit is one hit of a `quire search -json -` line: the citation
// without its snippet and headings, which evaluations do not read.
type lineHit struct {
	Path        string   `json:"path"`
	Name        string   `json:"name"`
	StartLine   int      `json:"startLine"`
	EndLine     int      `json:"endLine"`
	Score       float64  `json:"score"`
	LexicalRank int      `json:"lexicalRank"`
	VectorRank  int      `json:"vectorRank"`
	Matched     []string `json:"matched"`
	Similarity  float64  `json:"similarity"`
}

// searchLine is what `quire search -json -` prints for one line of input.
type searchLine struct {
	ID    any       `json:"id"` // the line's "id", or its line number
	Query string    `json:"query"`
	Hits  []lineHit `json:"hits"`
	Error string    `json:"error,omitempty"`
}

// searchLines answers each line of in — a query as text, or a JSON object
// {"id", "text"} (SciFact's queries_train.jsonl as it is) — with one JSON
// line on out, in order; blank lines are skipped. A line that cannot be
// answered gets an "error" and the rest go on. Exit status: 0 when every
// line was answered, 1 otherwise.
func searchLines(ctx context.Context, idx host.Index, in io.Reader, n int, mode protocol.SearchMode, out, stderr io.Writer) int {
	if in == nil {
		fmt.Fprintln(stderr, "quire search: there is no standard input to read queries from")
		return 1
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxQueryLine)
	w := bufio.NewWriter(out)
	defer w.Flush()
	enc := json.NewEncoder(w)
	status, line := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		res := searchLine{ID: line, Query: text, Hits: []lineHit{}}
		if strings.HasPrefix(text, "{") {
			var q struct {
				ID   any    `json:"id"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal([]byte(text), &q); err != nil || strings.TrimSpace(q.Text) == "" {
				res.Error = `a line that starts with "{" must be a JSON object with a non-empty "text", such as {"id": "7", "text": "what to find"}`
			} else {
				res.Query = q.Text
				if q.ID != nil {
					res.ID = q.ID
				}
			}
		}
		if res.Error == "" {
			cs, err := idx.Search(ctx, res.Query, n, mode)
			if err != nil {
				if ctx.Err() != nil {
					fmt.Fprintln(stderr, "quire search:", ctx.Err())
					return 1
				}
				res.Error = err.Error()
			}
			for _, c := range cs {
				res.Hits = append(res.Hits, lineHit{Path: c.Path, Name: c.Name, StartLine: c.StartLine, EndLine: c.EndLine, Score: c.Score,
					LexicalRank: c.LexicalRank, VectorRank: c.VectorRank, Matched: c.Matched, Similarity: c.Similarity})
			}
		}
		if res.Error != "" {
			status = 1
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(stderr, "quire search:", err)
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		w.Flush()
		if errors.Is(err, bufio.ErrTooLong) {
			fmt.Fprintf(stderr, "quire search: line %d of standard input is longer than %d KiB; a query must be shorter\n", line+1, maxQueryLine>>10)
		} else {
			fmt.Fprintln(stderr, "quire search: reading standard input:", err)
		}
		return 1
	}
	if msg := idx.VectorError(); msg != "" {
		fmt.Fprintln(stderr, "quire search: ranked by words only; the vector search failed:", msg)
	}
	return status
}
