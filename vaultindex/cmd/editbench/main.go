// Command editbench measures how long a note saved by another program
// takes to be found by the notes index's search, from a start: the index
// opens over an indexed vault, starts its watch and its reconciling scan
// as the app does (vaultindex.Index.Run), and at once the edits begin,
// one after another, each a new note with a word of its own, timed from
// the write to the search that finds it. Its floor, measured after each
// edit on a copy of the vault's text in a bare FTS5 table of the same database: a bare
// fsnotify watch seeing the same write, the note read, inserted and found
// by MATCH — the same FTS5 write done directly, no debounce.
//
//	go run ./vaultindex/cmd/editbench -notes 20000 -edits 60 -dir /tmp/v20k [-meaning]
//
// With -meaning every note waits for its vectors as the edits begin, so
// the edits are timed while the whole vault is being embedded.
//
// The vault (vaultgen, ~10 links a note) and its database are made in
// -dir and -dir.db the first time and reused after. Test equipment: it
// writes only in -dir (the edited notes, removed at the end) and beside it.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"quire/kernel/store"
	"quire/rag/hashvec"
	"quire/vault/vaultgen"
	"quire/vaultindex"
)

func main() {
	notes := flag.Int("notes", 20000, "notes in the generated vault")
	edits := flag.Int("edits", 60, "edits to time")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "quire-editbench"), "the vault (generated when missing)")
	meaning := flag.Bool("meaning", false, "give the notes vectors (the built-in hashed embedder) from the start, as an index with a model does")
	flag.Parse()
	if err := run(*dir, *notes, *edits, *meaning); err != nil {
		fmt.Fprintln(os.Stderr, "editbench:", err)
		os.Exit(1)
	}
}

func run(dir string, notes, edits int, meaning bool) error {
	ctx := context.Background()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		start := time.Now()
		if err := vaultgen.Generate(dir, notes, 1); err != nil {
			return err
		}
		fmt.Printf("generated %d notes in %s (%.1f s)\n", notes, dir, time.Since(start).Seconds())
	}
	st, err := store.Open(ctx, dir+".db")
	if err != nil {
		return err
	}
	defer st.Close()
	x, err := vaultindex.Open(ctx, st.DB(), dir)
	if err != nil {
		return err
	}
	if x.Count() == 0 {
		start := time.Now()
		if err := x.Sync(ctx); err != nil {
			return err
		}
		fmt.Printf("first index: %d notes (%.1f s)\n", x.Count(), time.Since(start).Seconds())
	}
	x.Close()

	floor := st.DB()
	if err := openFloor(ctx, floor, dir); err != nil {
		return err
	}
	fdir, err := os.MkdirTemp("", "quire-editbench-floor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(fdir)
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	if err := fw.Add(fdir); err != nil {
		return err
	}

	// The start: the index opened from its tables, the watch and the
	// reconcile begun as the app begins them, and the first edit at once.
	updates := make(chan vaultindex.Update, 1024)
	opened := time.Now()
	x, err = vaultindex.Open(ctx, st.DB(), dir, vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }))
	if err != nil {
		return err
	}
	defer x.Close()
	if err := x.Watch(); err != nil {
		return err
	}
	if meaning {
		// Every note waiting for its vectors (a new model's first start):
		// the embedding runs beside the edits.
		if _, err := st.DB().ExecContext(ctx, `UPDATE vault_notes SET vec_hash = ''`); err != nil {
			return err
		}
		x.UseMeaning(hashvec.New(hashvec.Default), "")
	}
	synced := make(chan time.Duration, 1)
	go func() {
		x.Sync(ctx)
		synced <- time.Since(opened)
	}()
	fmt.Printf("opened and watching %d notes in %.0f ms; edits begin\n", x.Count(), ms(time.Since(opened)))

	var lat, flat []time.Duration
	var written []string
	defer func() {
		for _, p := range written {
			os.Remove(p)
		}
	}()
	for i := range edits {
		rel := fmt.Sprintf("Edited %d.md", i)
		word := fmt.Sprintf("quokka%dx", i)
		text := []byte("# Edited\n\nA " + word + " here, see [[" + strings.TrimSuffix(filepath.Base(vaultgen.Hubs()[0]), ".md") + "]].\n")
		p := filepath.Join(dir, rel)
		written = append(written, p)
		start := time.Now()
		if err := os.WriteFile(p, text, 0o644); err != nil {
			return err
		}
		if err := awaitFound(ctx, x, updates, rel, word); err != nil {
			return err
		}
		lat = append(lat, time.Since(start))
		d, err := floorEdit(floor, fw, filepath.Join(fdir, rel), text, word)
		if err != nil {
			return err
		}
		flat = append(flat, d)
	}
	// The edited notes go, and the index with them, so the next run
	// starts from the same vault.
	for _, p := range written {
		os.Remove(p)
	}
	written = nil
	select {
	case d := <-synced:
		fmt.Printf("the start's reconcile ended %.0f ms after the open\n", ms(d))
	default:
		fmt.Println("the start's reconcile was still running after the last edit")
	}
	if meaning {
		m := x.Meaning()
		fmt.Printf("meanwhile %d of %d notes were embedded\n", m.Done, m.Total)
	}
	fmt.Printf("edit → searchable, %d edits at %d notes: first %.1f ms, p50 %.1f, p95 %.1f, max %.1f ms\n",
		len(lat), x.Count(), ms(lat[0]), ms(pct(lat, 50)), ms(pct(lat, 95)), ms(pct(lat, 100)))
	fmt.Printf("floor (bare fsnotify + FTS5 insert + MATCH):  first %.1f ms, p50 %.1f, p95 %.1f, max %.1f ms\n",
		ms(flat[0]), ms(pct(flat, 50)), ms(pct(flat, 95)), ms(pct(flat, 100)))
	return x.Sync(ctx)
}

// awaitFound waits for the index to commit rel (or a rescan), then
// searches for word until rel is the hit.
func awaitFound(ctx context.Context, x *vaultindex.Index, updates <-chan vaultindex.Update, rel, word string) error {
	deadline := time.After(60 * time.Second)
	for {
		select {
		case u := <-updates:
			if !u.Rescan && !slices.Contains(u.Paths, rel) {
				continue
			}
		case <-deadline:
			return fmt.Errorf("%s was not searchable within a minute", rel)
		}
		hits, err := x.Search(ctx, vaultindex.Query{Text: word, Limit: 5})
		if err != nil {
			return err
		}
		if len(hits) == 1 && hits[0].Path == rel {
			return nil
		}
	}
}

// openFloor fills a bare FTS5 table, in the index's own database, with
// the vault's notes the first time.
func openFloor(ctx context.Context, db *sql.DB, dir string) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM editbench_floor WHERE path LIKE 'Edited %'`); err == nil {
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE editbench_floor USING fts5(path UNINDEXED, body, tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !vaultindex.IsNote(p) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO editbench_floor(path, body) VALUES (?, ?)`, p, string(b))
		return err
	})
	if err != nil {
		return err
	}
	return tx.Commit()
}

// floorEdit writes text to p, waits for the bare watch to see the write,
// reads the note, inserts it and finds word by MATCH.
func floorEdit(db *sql.DB, w *fsnotify.Watcher, p string, text []byte, word string) (time.Duration, error) {
	start := time.Now()
	if err := os.WriteFile(p, text, 0o644); err != nil {
		return 0, err
	}
	for seen := false; !seen; {
		select {
		case ev := <-w.Events:
			seen = ev.Name == p && ev.Has(fsnotify.Write)
		case err := <-w.Errors:
			return 0, err
		case <-time.After(30 * time.Second):
			return 0, fmt.Errorf("the bare watch never saw %s written", p)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	if _, err := db.Exec(`INSERT INTO editbench_floor(path, body) VALUES (?, ?)`, filepath.Base(p), string(got)); err != nil {
		return 0, err
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM editbench_floor WHERE editbench_floor MATCH ?`, `"`+word+`"`).Scan(&n); err != nil || n != 1 {
		return 0, fmt.Errorf("floor search %q: %d hits, %v", word, n, err)
	}
	return time.Since(start), nil
}

// pct is the p-th percentile (nearest rank) of ds.
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
