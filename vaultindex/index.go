// Package vaultindex owns the notes index: every note of the notes folder
// in the shared SQLite database (tables vault_*: the note's size, mtime,
// hash, title, aliases, tags, headings, block ids and problem; its links;
// an FTS5 table over title, aliases, headings and body), and the live
// in-memory link graph (vault.Vault) loaded from those tables.
//
// Kept current in three ways: Sync, a reconciling scan that re-reads only
// files whose size or modification time changed (a start with nothing
// changed parses nothing); a watch (quire/watch) whose batches re-read
// the changed files; and a full Sync when the watch lost events.
//
// Ordering: one write (Sync or a batch) runs at a time; searches and graph
// reads run alongside and see each write once it is committed. Bad files
// (huge, binary, invalid UTF-8) are listed with a sentence and never stop
// the rest.
//
// It uses database/sql only: it must never import a SQL driver, the
// kernel runtime, tools, hosts or Wails.
package vaultindex

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"quire/internal/sqlschema"
	"quire/vault"
	"quire/watch"
)

// state is what the index holds of one file, to tell whether it changed.
type state struct {
	id    int64
	kind  string
	size  int64
	mtime int64
	hash  string
}

// Update is one committed write: the paths it changed.
type Update struct {
	Paths  []string // slash paths relative to the folder: indexed again or gone
	Rescan bool     // a whole reconciling scan
	Err    error    // why it failed; what was committed before stays
	// Added are the files of the write indexed at a path the index did
	// not hold (made, or moved in): of Paths, or of the whole scan.
	Added []string
}

type config struct {
	lim           vault.Limits
	progress      func(done, total int)
	onUpdate      []func(Update)
	watch         []watch.Option
	floor         *float64              // WithMeaningFloor
	embedProgress func(done, total int) // WithEmbedProgress
}

// Option configures an index.
type Option func(*config)

// WithLimits bounds what is read (vault.DefaultLimits by default).
func WithLimits(l vault.Limits) Option { return func(c *config) { c.lim = l } }

// WithProgress is told how many files of a scan were read, of how many to
// read; called from the goroutine of the write, it must not block.
func WithProgress(f func(done, total int)) Option { return func(c *config) { c.progress = f } }

// WithOnUpdate is told of every committed write (and a failed one), in
// order, from the goroutine of the write; it must not block. Each use
// adds one more: all are told, in the order given, before Subscribe's.
func WithOnUpdate(f func(Update)) Option {
	return func(c *config) { c.onUpdate = append(c.onUpdate, f) }
}

// WithWatch passes options to the folder's watch.
func WithWatch(opts ...watch.Option) Option {
	return func(c *config) { c.watch = append(c.watch, opts...) }
}

// Index is the notes index of one folder.
type Index struct {
	db   *sql.DB
	dir  string // absolute, symbolic links resolved
	cfg  config
	root string // the folder as stored in vault_notes.root

	graph  *vault.Vault
	parses atomic.Int64
	notesN atomic.Int64 // notes indexed (kind note), for the search's plan
	dfs    sync.Map     // word → docCount, the search plan's counts
	dfN    atomic.Int64 // entries stored in dfs since it was cleared

	syncMu sync.Mutex   // one reconcile at a time; its commits take mu batch by batch
	walks  atomic.Int64 // reconciles begun, for rescan

	rescanMu      sync.Mutex
	rescanWaiting bool           // a rescan waits for syncMu
	bg            sync.WaitGroup // the rescans under way
	mu            sync.Mutex     // one write at a time; guards known, w and limit
	known         map[string]state
	limit         string // the sentence of a bound the last Sync met ("" = none)
	w             *watch.Watcher
	lastErr       error
	synced        atomic.Bool // Synced
	scanAdded     []string    // the files the Sync under way indexed at new paths (syncMu held)

	subMu sync.Mutex                      // one Subscribe or its stop at a time
	subs  atomic.Pointer[[]*func(Update)] // Subscribe's, copied on change so notify reads without a lock

	meaning meaning

	ctx    context.Context
	cancel context.CancelFunc
}

// Open migrates the tables and loads the graph of dir from them: nothing
// is read from the folder until Sync.
func Open(ctx context.Context, db *sql.DB, dir string, opts ...Option) (*Index, error) {
	cfg := config{lim: vault.DefaultLimits()}
	for _, o := range opts {
		o(&cfg)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	x := &Index{db: db, dir: abs, root: filepath.ToSlash(abs), cfg: cfg, known: map[string]state{}}
	x.ctx, x.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := x.load(ctx); err != nil {
		return nil, fmt.Errorf("load the notes index of %s: %w", abs, err)
	}
	return x, nil
}

// Dir is the folder indexed.
func (x *Index) Dir() string { return x.dir }

// Graph is the live link graph.
func (x *Index) Graph() *vault.Vault { return x.graph }

// Count is how many notes are indexed.
func (x *Index) Count() int { return int(x.notesN.Load()) }

// HasLinks reports whether any indexed note links anywhere.
func (x *Index) HasLinks(ctx context.Context) (bool, error) {
	var one int
	err := x.db.QueryRowContext(ctx, `SELECT 1 FROM vault_links WHERE root = ? LIMIT 1`, x.root).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Parses counts the notes parsed since Open.
func (x *Index) Parses() int64 { return x.parses.Load() }

// Err is why the last write failed, or nil.
func (x *Index) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.lastErr
}

// PlanMove is what moving from → to does to the links, from the live graph.
func (x *Index) PlanMove(from, to string, read func(string) ([]byte, error)) (vault.Plan, error) {
	return x.graph.PlanMove(from, to, read)
}

// Synced reports whether the graph holds the whole folder: a reconcile
// (Sync) has ended without error since the index opened, and no rescan is
// under way. Until then a move is planned from a scan of the folder, not
// from a graph that may not know every note linking to what moves.
func (x *Index) Synced() bool { return x.synced.Load() }

// Close stops the watch and waits for a write under way (a Sync stops at
// its next batch); the tables stay.
func (x *Index) Close() error {
	x.cancel()
	x.mu.Lock()
	w := x.w
	x.w = nil
	x.mu.Unlock()
	var err error
	if w != nil {
		err = w.Close()
	}
	x.bg.Wait()
	// Once the write under way, if any, has ended, the graph is no longer
	// kept: a move planned after this scans the folder.
	x.syncMu.Lock()
	x.mu.Lock()
	x.synced.Store(false)
	x.mu.Unlock()
	x.syncMu.Unlock()
	return err
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func joinLines(xs []string) string { return strings.Join(xs, "\n") }

// load builds the graph from the tables, parsing nothing: one row a
// file, its links packed (pack.go).
func (x *Index) load(ctx context.Context) error {
	rows, err := x.db.QueryContext(ctx, `SELECT id, path, kind, size, mtime_ns, hash, title, aliases, tags, headings, blocks, problem, links
		FROM vault_notes WHERE root = ?`, x.root)
	if err != nil {
		return err
	}
	defer rows.Close()
	var notes []vault.Note
	var files []string
	for rows.Next() {
		var s state
		var n vault.Note
		var aliases, tags, headings, blocks string
		var links []byte
		if err := rows.Scan(&s.id, &n.Path, &s.kind, &s.size, &s.mtime, &s.hash, &n.Title, &aliases, &tags, &headings, &blocks, &n.Problem, &links); err != nil {
			return err
		}
		if n.Links, err = unpackLinks(links); err != nil {
			s.size, s.mtime = -1, -1 // read again by the next Sync
		}
		n.Aliases, n.Tags, n.Headings, n.Blocks = lines(aliases), lines(tags), lines(headings), lines(blocks)
		x.known[n.Path] = s
		if s.kind == kindNote {
			notes = append(notes, n)
		} else {
			files = append(files, n.Path)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	x.notesN.Store(int64(len(notes)))
	x.graph = vault.New(vault.DetectStyle(x.appJSON(), notes))
	for _, f := range files {
		x.graph.PutFile(f)
	}
	for _, n := range notes {
		x.graph.Put(n)
	}
	return nil
}

func (x *Index) appJSON() []byte {
	b, err := os.ReadFile(filepath.Join(x.dir, ".obsidian", "app.json"))
	if err != nil {
		return nil
	}
	return b
}

// IsNote reports whether a file is read as a note: a .md file, as the
// vault's graph counts notes (anything else is an attachment).
func IsNote(name string) bool { return strings.EqualFold(path.Ext(name), ".md") }

// maxBodyBytes is how much of a note's text the FTS5 table takes.
const maxBodyBytes = 512 << 10

// found is one file seen on disk.
type found struct {
	rel   string
	size  int64
	mtime int64
}

// Sync reconciles the index with the folder: files new or whose size or
// modification time changed are read again, files gone are dropped.
//
// Only its commits hold the write lock, batch by batch: the walk, the
// reads and the links' refresh run beside the watch's batches, so a note
// saved elsewhere during a start's reconcile of a large folder is
// searchable after the watch's debounce, not after the whole reconcile.
// Each batch is checked under the lock against the disk and what the
// watch committed meanwhile, so the reconcile never stores an older text
// over a newer one nor drops a file the watch just indexed.
func (x *Index) Sync(ctx context.Context) error {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	x.synced.Store(false)
	x.scanAdded = nil
	err := x.sync(ctx)
	x.mu.Lock()
	x.synced.Store(err == nil)
	x.lastErr = err
	x.notify(Update{Rescan: true, Err: err, Added: x.scanAdded})
	x.mu.Unlock()
	x.scanAdded = nil
	return err
}

// snapshot is a copy of what the index holds, read under the lock.
func (x *Index) snapshot() map[string]state {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[string]state, len(x.known))
	for k, v := range x.known {
		out[k] = v
	}
	return out
}

// commitChecked commits the changes of a reconcile that still hold
// (x.mu held): a file the watch indexed meanwhile at the size and time
// read is left to it, a file changed since it was read is left to the
// watch's next batch, and a file back on disk is not dropped.
func (x *Index) commitChecked(ctx context.Context, cs []change) error {
	return x.commit(ctx, x.stillHold(cs), &x.scanAdded)
}

// stillHold is what of a reconcile's changes cs still holds (x.mu held).
func (x *Index) stillHold(cs []change) []change {
	keep := cs[:0]
	for _, c := range cs {
		info, err := os.Lstat(filepath.Join(x.dir, filepath.FromSlash(c.rel)))
		if c.gone {
			if err == nil {
				continue
			}
			keep = append(keep, c)
			continue
		}
		if err != nil || info.Size() != c.readSize || info.ModTime().UnixNano() != c.mtime {
			continue // changed or gone since it was read: the watch tells
		}
		if s, ok := x.known[c.rel]; ok && s.size == c.size && s.mtime == c.mtime && s.hash == c.hash {
			continue // the watch got there first
		}
		keep = append(keep, c)
	}
	return keep
}

// notify tells the write u to every subscriber (x.mu held, so in order).
func (x *Index) notify(u Update) {
	for _, f := range x.cfg.onUpdate {
		f(u)
	}
	if subs := x.subs.Load(); subs != nil {
		for _, f := range *subs {
			(*f)(u)
		}
	}
}

// Subscribe tells f of every committed write from now on, as WithOnUpdate
// does (in order, from the goroutine of the write: f must not block nor
// call Subscribe). stop ends it; a write being told may still reach f.
func (x *Index) Subscribe(f func(Update)) (stop func()) {
	p := &f
	x.subMu.Lock()
	defer x.subMu.Unlock()
	var subs []*func(Update)
	if old := x.subs.Load(); old != nil {
		subs = append(subs, *old...)
	}
	subs = append(subs, p)
	x.subs.Store(&subs)
	return func() {
		x.subMu.Lock()
		defer x.subMu.Unlock()
		var kept []*func(Update)
		for _, g := range *x.subs.Load() {
			if g != p {
				kept = append(kept, g)
			}
		}
		x.subs.Store(&kept)
	}
}

func (x *Index) sync(ctx context.Context) error {
	x.walks.Add(1)
	known := x.snapshot()
	seen := map[string]bool{}
	var todo []found
	files := 0
	err := filepath.WalkDir(x.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == x.dir {
				return err
			}
			return nil
		}
		if p == x.dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(x.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.Count(rel, "/")+1 >= x.cfg.lim.MaxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symbolic links are not followed
		}
		files++
		if x.cfg.lim.MaxFiles > 0 && files > x.cfg.lim.MaxFiles {
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		seen[rel] = true
		f := found{rel: rel, size: info.Size(), mtime: info.ModTime().UnixNano()}
		if s, ok := known[rel]; ok && s.size == f.size && s.mtime == f.mtime {
			return nil
		}
		todo = append(todo, f)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the notes folder %s: %w", x.dir, err)
	}
	limit := ""
	if x.cfg.lim.MaxFiles > 0 && files > x.cfg.lim.MaxFiles {
		limit = fmt.Sprintf("the notes folder has more than %d files; only the first %d found are indexed", x.cfg.lim.MaxFiles, x.cfg.lim.MaxFiles)
	}
	var gone []change
	for rel := range known {
		if !seen[rel] {
			gone = append(gone, change{rel: rel, gone: true})
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].rel < gone[j].rel })
	x.mu.Lock()
	x.limit = limit
	err = x.commitChecked(ctx, gone)
	x.mu.Unlock()
	if err != nil {
		return err
	}
	// A transaction holds the database's write lock, which the
	// conversations' log shares: each is bounded by files and by text.
	const batchFiles, batchBytes = 256, 1 << 20
	var cs []change
	size := 0
	for i, f := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := x.read(f, "")
		cs = append(cs, c)
		size += len(c.body)
		if len(cs) < batchFiles && size < batchBytes && i < len(todo)-1 {
			continue
		}
		x.mu.Lock()
		err := x.commitChecked(ctx, cs)
		x.mu.Unlock()
		if err != nil {
			return err
		}
		cs, size = nil, 0
		if x.cfg.progress != nil {
			x.cfg.progress(i+1, len(todo))
		}
	}
	if len(todo) > 0 || len(gone) > 0 {
		x.graph.SetStyle(vault.DetectStyle(x.appJSON(), x.notes()))
		return x.refreshResolved(ctx)
	}
	return nil
}

// refreshResolved rewrites vault_links.resolved where the graph now
// resolves a link otherwise: a note indexed early in a scan could not
// resolve links to notes read after it. The column feeds the search's
// backlink counts; the graph stays the truth for links.
func (x *Index) refreshResolved(ctx context.Context) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }()
	type key struct {
		id  int64
		ord int
	}
	stored := map[key]string{}
	rows, err := x.db.QueryContext(ctx, `SELECT note_id, ord, resolved FROM vault_links WHERE root = ?`, x.root)
	if err != nil {
		return err
	}
	for rows.Next() {
		var k key
		var r string
		if err := rows.Scan(&k.id, &k.ord, &r); err != nil {
			rows.Close()
			return err
		}
		stored[k] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Link by link, each a moment of the graph's lock (building the
	// resolved graph of a large folder at once would hold that lock for
	// seconds, and the watch's commits resolve links through it), and
	// only then the transaction, which holds the database's write lock
	// for the updates alone.
	type update struct {
		key
		to string
	}
	var ups []update
	ids := x.snapshot()
	for _, p := range x.graph.Paths() {
		n, ok := x.graph.Note(p)
		if !ok {
			continue
		}
		id := ids[p].id
		for ord, l := range n.Links {
			to, ok := x.graph.Resolve(p, l)
			if !ok {
				to = ""
			}
			if old, ok := stored[key{id, ord}]; ok && old != to {
				ups = append(ups, update{key{id, ord}, to})
			}
		}
	}
	if len(ups) == 0 {
		return nil
	}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `UPDATE vault_links SET resolved = ? WHERE note_id = ? AND ord = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, u := range ups {
		if _, err := stmt.ExecContext(ctx, u.to, u.id, u.ord); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (x *Index) notes() []vault.Note {
	paths := x.graph.Paths()
	out := make([]vault.Note, 0, len(paths))
	for _, p := range paths {
		if n, ok := x.graph.Note(p); ok {
			out = append(out, n)
		}
	}
	return out
}

// change is one file to store (or drop).
type change struct {
	rel      string
	readSize int64 // the size the file had when it was listed or read
	gone     bool
	kind     string
	size     int64
	mtime    int64
	hash     string
	note     vault.Note
	body     string
	reason   string
}

// read reads one file and parses it when it is a note. A file with the
// hash given is not parsed again (a watch event that changed nothing).
func (x *Index) read(f found, sameHash string) change {
	c := change{rel: f.rel, size: f.size, readSize: f.size, mtime: f.mtime, kind: kindFile}
	if !IsNote(f.rel) {
		return c
	}
	c.kind = kindSkipped
	if x.cfg.lim.MaxNoteBytes > 0 && f.size > x.cfg.lim.MaxNoteBytes {
		c.reason = fmt.Sprintf("it is larger than %s, the most a note may be; it was not indexed", mib(x.cfg.lim.MaxNoteBytes))
		return c
	}
	data, err := os.ReadFile(filepath.Join(x.dir, filepath.FromSlash(f.rel)))
	if err != nil {
		c.reason = "it could not be read: " + err.Error()
		return c
	}
	sum := sha256.Sum256(data)
	c.hash = hex.EncodeToString(sum[:])
	c.size = int64(len(data))
	switch {
	case x.cfg.lim.MaxNoteBytes > 0 && int64(len(data)) > x.cfg.lim.MaxNoteBytes:
		c.reason = fmt.Sprintf("it is larger than %s, the most a note may be; it was not indexed", mib(x.cfg.lim.MaxNoteBytes))
	case bytes.IndexByte(data, 0) >= 0:
		c.reason = "it looks binary (it holds NUL bytes), not text; it was not indexed"
	case !utf8.Valid(data):
		c.reason = "it is not valid UTF-8 text; it was not indexed (save it as UTF-8 to index it)"
	case sameHash != "" && sameHash == c.hash:
		c.kind = "" // unchanged content: only size and time are stored
	default:
		x.parses.Add(1)
		c.kind = kindNote
		c.note = vault.Parse(f.rel, data)
		c.note.Path = f.rel
		c.body = string(data)
		c.reason = c.note.Problem
		if len(c.body) > maxBodyBytes {
			// Its links and headings are all kept; its words are searched
			// in the first part only, so storing it never holds the write
			// lock long.
			c.body = c.body[:maxBodyBytes]
			for !utf8.ValidString(c.body) {
				c.body = c.body[:len(c.body)-1]
			}
			c.reason = strings.TrimPrefix(c.reason+"; only its first 512 KiB are searched by words", "; ")
		}
	}
	return c
}

func mib(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// commit stores cs in one transaction, then applies them to the graph and
// to known: the graph never shows what the tables do not hold. The files
// it indexed at a path known did not hold are appended to added.
func (x *Index) commit(ctx context.Context, cs []change, added *[]string) (err error) {
	if len(cs) == 0 {
		return nil
	}
	defer func() { err = sqlschema.NoSpace(err) }()
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ids := make([]int64, len(cs))
	var dropped []int64 // vectors of notes gone or no longer readable
	drop := func(id int64) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM vault_vectors WHERE note_id = ? RETURNING id`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				return err
			}
			dropped = append(dropped, v)
		}
		return rows.Err()
	}
	for i, c := range cs {
		old, had := x.known[c.rel]
		switch {
		case c.gone:
			if !had {
				continue
			}
			if err := drop(old.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM vault_fts WHERE rowid = ?`, old.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM vault_notes WHERE id = ?`, old.id); err != nil {
				return err
			}
		case c.kind == "":
			if _, err := tx.ExecContext(ctx, `UPDATE vault_notes SET size = ?, mtime_ns = ? WHERE id = ?`, c.size, c.mtime, old.id); err != nil {
				return err
			}
			ids[i] = old.id
		default:
			n := c.note
			if err := tx.QueryRowContext(ctx, `INSERT INTO vault_notes(root, path, kind, size, mtime_ns, hash, title, aliases, tags, headings, blocks, problem, links)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT(root, path) DO UPDATE SET kind = excluded.kind, size = excluded.size, mtime_ns = excluded.mtime_ns,
					hash = excluded.hash, title = excluded.title, aliases = excluded.aliases, tags = excluded.tags,
					headings = excluded.headings, blocks = excluded.blocks, problem = excluded.problem, links = excluded.links
				RETURNING id`,
				x.root, c.rel, c.kind, c.size, c.mtime, c.hash, n.Title, joinLines(n.Aliases), joinLines(n.Tags),
				joinLines(n.Headings), joinLines(n.Blocks), c.reason, packLinks(n.Links)).Scan(&ids[i]); err != nil {
				return err
			}
			if had {
				if _, err := tx.ExecContext(ctx, `DELETE FROM vault_fts WHERE rowid = ?`, ids[i]); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM vault_links WHERE note_id = ?`, ids[i]); err != nil {
					return err
				}
			}
			if c.kind != kindNote {
				if had {
					if err := drop(ids[i]); err != nil {
						return err
					}
				}
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO vault_fts(rowid, title, aliases, headings, body) VALUES (?, ?, ?, ?, ?)`,
				ids[i], n.Title, joinLines(n.Aliases), joinLines(n.Headings), c.body); err != nil {
				return err
			}
			for ord, l := range n.Links {
				resolved, _ := x.graph.Resolve(c.rel, l)
				if _, err := tx.ExecContext(ctx, `INSERT INTO vault_links(note_id, ord, root, wiki, embed, target, sub, text, start, end_, line, property, resolved)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					ids[i], ord, x.root, l.Wiki, l.Embed, l.Target, l.Sub, l.Text, l.Start, l.End, l.Line, l.Property, resolved); err != nil {
					return err
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	x.dropVectors(dropped)
	defer x.wakeEmbed()
	for i, c := range cs {
		if old, had := x.known[c.rel]; had && old.kind == kindNote && (c.gone || (c.kind != "" && c.kind != kindNote)) {
			x.notesN.Add(-1)
		} else if (!had || old.kind != kindNote) && c.kind == kindNote {
			x.notesN.Add(1)
		}
		switch {
		case c.gone:
			delete(x.known, c.rel)
			x.graph.Remove(c.rel)
		case c.kind == "":
			s := x.known[c.rel]
			s.size, s.mtime = c.size, c.mtime
			x.known[c.rel] = s
		default:
			if _, had := x.known[c.rel]; !had {
				*added = append(*added, c.rel)
			}
			x.known[c.rel] = state{id: ids[i], kind: c.kind, size: c.size, mtime: c.mtime, hash: c.hash}
			if c.kind == kindNote {
				x.graph.Put(c.note)
			} else {
				x.graph.Remove(c.rel)
				x.graph.PutFile(c.rel)
			}
		}
	}
	return nil
}

// Run watches the folder, then reconciles the index with it, until Close
// (which cancels the reconciling): what a start does, in the background.
func (x *Index) Run() (watchErr, syncErr error) {
	watchErr = x.Watch()
	syncErr = x.Sync(x.ctx)
	return watchErr, syncErr
}

// Watch starts the folder's live watch: every batch of changed paths is
// read again (a changed file by its hash), and a batch that lost events
// is a full Sync. Close stops it.
func (x *Index) Watch() error {
	w, err := watch.Start(x.dir, x.onBatch, x.cfg.watch...)
	if err != nil {
		return fmt.Errorf("watch the notes folder %s: %w", x.dir, err)
	}
	x.mu.Lock()
	if x.ctx.Err() != nil {
		x.mu.Unlock()
		w.Close()
		return ErrClosed
	}
	old := x.w
	x.w = w
	x.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// onBatch applies a batch of the watch. A rescan runs beside the watch
// (rescan), never in its delivery goroutine: a watch that lost events, or
// holds fewer folders than the vault has (which it says at its start), must
// not hold every later edit until a whole reconcile of the folder is done
// (at 20,000 notes the first edit after a start waited 3.9 s for one).
func (x *Index) onBatch(b watch.Batch) {
	if x.ctx.Err() != nil {
		return
	}
	if len(b.Paths) > 0 {
		x.Apply(x.ctx, b.Paths)
	}
	if b.Rescan {
		x.rescan(x.walks.Load())
	}
}

// rescan reconciles the folder in the background, once for any number
// of asks while one waits, and not at all when a reconcile whose walk
// began after the ask (walks counts them) has ended without error since.
func (x *Index) rescan(asked int64) {
	x.rescanMu.Lock()
	defer x.rescanMu.Unlock()
	if x.rescanWaiting {
		return // the one waiting walks after this ask
	}
	x.rescanWaiting = true
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		x.syncMu.Lock()
		x.rescanMu.Lock()
		x.rescanWaiting = false
		x.rescanMu.Unlock()
		covered := x.walks.Load() > asked && x.synced.Load()
		x.syncMu.Unlock()
		if !covered && x.ctx.Err() == nil {
			x.Sync(x.ctx)
		}
	}()
}

// Apply reads the given paths again (absolute, or relative to the folder):
// each is indexed, dropped when gone (a folder with everything under it),
// or left when its content did not change.
func (x *Index) Apply(ctx context.Context, paths []string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	var cs []change
	var rels []string
	for _, p := range paths {
		rel := p
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(x.dir, p)
			if err != nil {
				continue
			}
			rel = r
		}
		rel = filepath.ToSlash(filepath.Clean(rel))
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || watch.Hidden(rel) {
			continue
		}
		info, err := os.Lstat(filepath.Join(x.dir, filepath.FromSlash(rel)))
		switch {
		case err != nil || (!info.IsDir() && !info.Mode().IsRegular()):
			// gone, or now a symbolic link (never followed) or a device
			for k := range x.known {
				if k == rel || strings.HasPrefix(k, rel+"/") {
					cs = append(cs, change{rel: k, gone: true})
					rels = append(rels, k)
				}
			}
		case info.Mode().IsRegular():
			s, had := x.known[rel]
			f := found{rel: rel, size: info.Size(), mtime: info.ModTime().UnixNano()}
			if had && s.size == f.size && s.mtime == f.mtime {
				continue
			}
			hash := ""
			if had && s.kind == kindNote {
				hash = s.hash
			}
			c := x.read(f, hash)
			if c.kind == kindFile && had && s.kind == kindFile {
				c.kind = "" // an attachment changed: only its size and time
			}
			cs = append(cs, c)
			rels = append(rels, rel)
		}
	}
	var added []string
	err := x.commit(ctx, cs, &added)
	x.lastErr = err
	if len(rels) > 0 || err != nil {
		x.notify(Update{Paths: rels, Err: err, Added: added})
	}
	return err
}

// Problem is a file listed with why it is not (fully) indexed.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Problems lists the notes that could not be read, or were read in part;
// a bound the folder went over comes first, with the path "".
func (x *Index) Problems(ctx context.Context) ([]Problem, error) {
	var out []Problem
	x.mu.Lock()
	if x.limit != "" {
		out = append(out, Problem{Reason: x.limit})
	}
	x.mu.Unlock()
	rows, err := x.db.QueryContext(ctx, `SELECT path, problem FROM vault_notes WHERE root = ? AND problem != '' ORDER BY path`, x.root)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p Problem
		if err := rows.Scan(&p.Path, &p.Reason); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
