package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/assembly"
	"quire/config"
	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
	"quire/test/testkit"
	"quire/test/testkit/smalldisk"
)

// ownIndex opens the data folder dir as its owner, with no Ollama at all
// (the offline embedder makes the vectors), and returns its document index.
func ownIndex(t *testing.T, dir string) host.Index {
	t.Helper()
	p, err := assembly.Open(t.Context(), config.NewStore(config.Config{DataDir: dir, OllamaHost: "http://127.0.0.1:1", Model: "m", NumCtx: 4096}),
		slog.New(slog.DiscardHandler), assembly.Owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	idx, err := p.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestIndexAndSearchCommands(t *testing.T) {
	dir := t.TempDir()
	idx := ownIndex(t, dir)
	notes := filepath.Join(dir, "notes")
	os.MkdirAll(notes, 0o755)
	old := time.Now().Add(-time.Hour)
	for name, body := range map[string]string{"plan.md": "# Plan\n\n## Budget\n\nThe zeppelin budget is tight.\n", "photo.png": "\x89PNG\r\n",
		"a.yml": "a: 1\n", "b.yml": "b: 2\n", "c.json": "{}", "blob.txt": "\x00\x01binary\x00"} {
		p := filepath.Join(notes, name)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chtimes(p, old, old)
	}
	var out, errb strings.Builder
	if code := index(context.Background(), idx, []string{notes}, &out, &errb); code != 0 {
		t.Fatalf("index exit %d: %s %s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "1 files indexed, 1 not indexed (2 processed in") || !strings.Contains(out.String(), "blob.txt: binary content") ||
		!strings.Contains(out.String(), "\n4 skipped: Quire does not read .yml, .json, .png\n") || strings.Contains(out.String(), "photo.png") ||
		!strings.Contains(out.String(), "Embeddings: built-in offline embedder") || !strings.Contains(errb.String(), "[") {
		t.Errorf("index output:\n%s\nstderr:\n%q", out.String(), errb.String())
	}

	out.Reset()
	if code := search(context.Background(), idx, "zeppelin budget", 5, protocol.SearchDefault, false, &out, &errb); code != 0 {
		t.Fatalf("search exit %d: %s", code, errb.String())
	}
	if first := strings.SplitN(out.String(), "\n", 2)[0]; first != "[1] notes/plan.md › Plan › Budget (lines 1–5): # Plan ## Budget The zeppelin budget is tight." {
		t.Errorf("search output %q", out.String())
	}
	out.Reset()
	if code := search(context.Background(), idx, "zeppelin", 1, protocol.SearchDefault, true, &out, &errb); code != 0 {
		t.Fatal(code)
	}
	var data protocol.SearchResult
	if err := json.Unmarshal([]byte(out.String()), &data); err != nil || len(data.Hits) != 1 || data.Hits[0].Name != "notes/plan.md" {
		t.Errorf("json output %s (%v)", out.String(), err)
	}
	if code := search(context.Background(), idx, " ", 5, protocol.SearchDefault, false, &out, &errb); code != 2 {
		t.Errorf("empty query exit %d", code)
	}
	errb.Reset()
	if code := search(context.Background(), idx, "zzqxj flurbo", 5, protocol.SearchDefault, false, &out, &errb); code != 1 || !strings.Contains(errb.String(), "No passage matches") {
		t.Errorf("a query with no matching word: exit %d, stderr %q", code, errb.String())
	}
	if code := runIndex(context.Background(), nil, Env{Stdout: &out, Stderr: &errb}); code != 2 {
		t.Errorf("no paths exit %d", code)
	}
	errb.Reset()
	if code := index(context.Background(), idx, []string{filepath.Join(dir, "missing")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "not there") {
		t.Errorf("missing path: exit %d, %q", code, errb.String())
	}
}

// TestIndexGoesThroughTheRunningOwner: with `quire serve` owning the data
// folder, `quire index` has the owner index (over its local channel) and
// prints the same summary; a missing path is the owner's sentence, exit
// 1; and while another `quire index` owns the folder it is refused, naming
// it, without opening the database.
func TestIndexGoesThroughTheRunningOwner(t *testing.T) {
	dir, docs := t.TempDir(), t.TempDir()
	settings := config.NewStore(config.Config{DataDir: dir, OllamaHost: "http://127.0.0.1:1", Model: "m", NumCtx: 4096})
	p, err := assembly.OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), assembly.Owner, assembly.Extras{Kind: datadir.Serve})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.ServeLocal(t.Context(), p.ServeBackend(t.Context(), ""))
	testkit.WriteOld(t, filepath.Join(docs, "plan.md"), "# Plan\n\nThe zeppelin budget is tight.\n")

	var out, errb strings.Builder
	code := run([]string{"index", "-data-dir", dir, "-ollama-host", "http://127.0.0.1:1", docs}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "1 files indexed, 0 not indexed (1 processed in") ||
		!strings.Contains(errb.String(), "This data folder is owned by `quire serve` (process") {
		t.Fatalf("index through the owner: exit %d\n%s\nstderr: %s", code, out.String(), errb.String())
	}
	idx, err := p.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if list, err := idx.Documents(t.Context()); err != nil || len(list) != 1 || list[0].Status != "done" {
		t.Fatalf("the owner's index: %+v %v", list, err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"index", "-data-dir", dir, filepath.Join(docs, "missing")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no such file or folder") {
		t.Errorf("a missing path through the owner: exit %d, %q", code, errb.String())
	}

	refusedWhileIndexing(t, "index", docs)
}

// refusedWhileIndexing: while `quire index` holds a data folder, the
// command is refused naming it (exit 1), and the database is not opened.
func refusedWhileIndexing(t *testing.T, command, arg string) {
	t.Helper()
	busy := t.TempDir()
	lock, err := datadir.Acquire(busy, datadir.Holder{PID: 4242, Kind: datadir.Index, Since: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	var out, errb strings.Builder
	if code := run([]string{command, "-data-dir", busy, arg}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "`quire index` (process 4242") {
		t.Errorf("%s while quire index holds the folder: exit %d, %q", command, code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(busy, "quire.db")); !os.IsNotExist(err) {
		t.Errorf("the refused %s opened the database: %v", command, err)
	}
}

// TestIndexOnAFullDiskSaysSo: `quire index` whose data folder's disk is
// full says so and what to do, exit 1 — not the driver's "database or disk
// is full (13)".
func TestIndexOnAFullDiskSaysSo(t *testing.T) {
	disk := smalldisk.Mount(t, "16m")
	idx := ownIndex(t, disk)
	notes := filepath.Join(t.TempDir(), "notes")
	testkit.WriteOld(t, filepath.Join(notes, "plan.md"), "# Plan\n\n"+strings.Repeat("The zeppelin budget is tight. ", 500)+"\n")
	smalldisk.Fill(t, filepath.Join(disk, "ballast"))
	var out, errb strings.Builder
	code := index(context.Background(), idx, []string{notes}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "quire index: the disk is full") || !strings.Contains(errb.String(), "Free some space") || strings.Contains(errb.String(), "(13)") {
		t.Fatalf("index on a full disk: exit %d, stderr %q", code, errb.String())
	}
}

// TestSearchModesAndQueriesFromStandardInput: `quire search -mode` picks
// the arms (a bad mode is a usage error), and `quire search -json -`
// answers each line of standard input — text, or SciFact's {"id","text"}
// lines as they are — with one JSON line, in order, a bad line getting an
// error while the rest go on.
func TestSearchModesAndQueriesFromStandardInput(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	testkit.WriteOld(t, filepath.Join(notes, "plan.md"), "# Plan\n\nThe zeppelin budget is tight.\n")
	testkit.WriteOld(t, filepath.Join(notes, "garden.md"), "# Garden\n\nTomatoes need sun.\n")
	var out, errb strings.Builder
	if code := run([]string{"index", "-data-dir", dir, "-ollama-host", "http://127.0.0.1:1", notes}, &out, &errb); code != 0 {
		t.Fatalf("index: exit %d %s %s", code, out.String(), errb.String())
	}
	for _, c := range []struct {
		mode     string
		lex, vec bool
	}{{"lexical", true, false}, {"vector", false, true}, {"hybrid", true, true}, {"", true, false}} {
		out.Reset()
		args := []string{"search", "-data-dir", dir, "-ollama-host", "http://127.0.0.1:1", "-json"}
		if c.mode != "" {
			args = append(args, "-mode", c.mode)
		}
		if code := run(append(args, "zeppelin budget"), &out, &errb); code != 0 {
			t.Fatalf("-mode %q: exit %d, %s", c.mode, code, errb.String())
		}
		var res protocol.SearchResult
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil || len(res.Hits) == 0 {
			t.Fatalf("-mode %q: %s (%v)", c.mode, out.String(), err)
		}
		if h := res.Hits[0]; (h.LexicalRank > 0) != c.lex || (h.VectorRank > 0) != c.vec || h.Name != "notes/plan.md" {
			t.Errorf("-mode %q: top hit %+v", c.mode, h)
		}
	}
	errb.Reset()
	if code := run([]string{"search", "-data-dir", dir, "-mode", "semantic", "x"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "choose lexical, vector or hybrid") {
		t.Errorf("a bad mode: exit %d, %q", code, errb.String())
	}
	if code := run([]string{"search", "-data-dir", dir, "-"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "needs -json") {
		t.Errorf("- without -json: exit %d, %q", code, errb.String())
	}

	in := strings.Join([]string{
		"tomatoes sun",
		"",
		`{"id": "7", "text": "zeppelin budget"}`,
		`{"id": 8}`,
		"zzqxj flurbo",
	}, "\n") + "\n"
	out.Reset()
	errb.Reset()
	code := runIn([]string{"search", "-data-dir", dir, "-ollama-host", "http://127.0.0.1:1", "-json", "-n", "3", "-"}, strings.NewReader(in), &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || len(lines) != 4 {
		t.Fatalf("-json -: exit %d (want 1: one bad line), %d lines:\n%s\nstderr %s", code, len(lines), out.String(), errb.String())
	}
	var got []searchLine
	for _, l := range lines {
		var r searchLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got = append(got, r)
	}
	if got[0].ID != float64(1) || got[0].Query != "tomatoes sun" || len(got[0].Hits) == 0 || got[0].Hits[0].Name != "notes/garden.md" ||
		strings.Join(got[0].Hits[0].Matched, ",") != "tomatoes,sun" {
		t.Errorf("line 1: %+v", got[0])
	}
	if got[1].ID != "7" || got[1].Query != "zeppelin budget" || len(got[1].Hits) == 0 || got[1].Hits[0].Name != "notes/plan.md" || got[1].Hits[0].StartLine != 1 {
		t.Errorf("the SciFact-shaped line: %+v", got[1])
	}
	if got[2].ID != float64(4) || got[2].Error == "" || len(got[2].Hits) != 0 {
		t.Errorf("a line without text: %+v", got[2])
	}
	if got[3].ID != float64(5) || got[3].Error != "" || len(got[3].Hits) != 0 || !strings.Contains(lines[3], `"hits":[]`) {
		t.Errorf("a query with no matching word: %s", lines[3])
	}
}
