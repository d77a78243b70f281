package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"quire/internal/vecindex"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/rag/hashvec"
)

// Item is one remembered thing, as hosts show it.
type Item = protocol.MemoryItem

// The kinds of memory (seed 002 decision 6).
const (
	Working    = "working"
	Fact       = "fact"
	Preference = "preference"
)

// Notes qualify working memory.
const (
	Conclusion = "conclusion"
	OpenTask   = "open"
	Attempt    = "attempt"
)

// Statuses of an item: pending items wait for the user's approval and are
// not shown to the model.
const (
	Kept    = "kept"
	Pending = "pending"
)

// Origins of a write.
const (
	ByTool       = "tool"
	ByProposal   = "proposal"
	ByAuto       = "auto"
	ByUser       = "user"
	ByCompaction = "compaction"
)

// How the user let an item in (Item.Approved).
const (
	ByAsking      = "asked"   // the user said yes to the question about the call
	InPanel       = "panel"   // the user kept a pending item in the memory panel
	ByUserText    = "user"    // the user wrote its text (an edit in the panel)
	WithoutAsking = "unasked" // kept without a question ("remember without asking")
	// OwnNote: Quire's own note while working (a search it tried, what a
	// compaction drew out), for the model's next steps: nobody's memory of
	// the user, so no approval applies. Marked "unasked" they read
	// "Remembered without asking" under an unticked "Remember without
	// asking" (issue 31).
	OwnNote = "own"
)

// MaxText is the longest item text, in characters: a memory is one fact,
// not a document.
const MaxText = 500

// Reader is what memory reads of the log.
type Reader interface {
	Sessions(ctx context.Context) ([]event.SessionSummary, error)
	Events(ctx context.Context, session string, from int64) ([]event.Event, error)
	// LastSeqOf is the seq of the session's last event of type typ in run
	// runID, -1 when there is none.
	LastSeqOf(ctx context.Context, session string, typ event.Type, runID string) (int64, error)
}

// Writer appends plain events to a session's log (the runtime's AppendPlain,
// so hosts following the session see them).
type Writer interface {
	AppendPlain(ctx context.Context, session string, drafts ...event.Draft) ([]event.Event, error)
}

// Embedder turns texts into vectors, one per text (rag's embedders fit).
type Embedder interface {
	Name() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Store is the memory index over the log. It is safe for concurrent use:
// writes and catch-up are serialised, so rows follow each session's seq order.
type Store struct {
	db       *sql.DB
	log      Reader
	writer   atomic.Pointer[Writer]
	emb      Embedder
	now      func() time.Time
	newID    func() string
	logger   *slog.Logger
	budget   int
	approval atomic.Bool
	learn    atomic.Bool

	save       func(approval, learn bool) error
	settingsMu sync.Mutex // serialises saving the settings

	mu sync.Mutex // serialises writes, catch-up and changes to the vector index
	// vecs is the vector index (rowid -> vector of emb); read without mu,
	// so a search never waits for a write that is embedding (Rebuild swaps it).
	vecs atomic.Pointer[vecindex.Index]
}

// Option configures a Store.
type Option func(*Store)

// WithEmbedder sets the embedder (default: rag's offline hashed embedder, so
// retrieval works with no model at all).
func WithEmbedder(e Embedder) Option {
	return func(s *Store) {
		if e != nil {
			s.emb = e
		}
	}
}

// WithIDs sets how item ids are made (tests make them predictable).
func WithIDs(f func() string) Option { return func(s *Store) { s.newID = f } }

// WithClock sets the clock for event times.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// WithApproval says whether what the assistant remembers needs the user's
// approval. On by default: remember and forget ask (their Spec grants
// nothing), and the Learner's proposals wait in the panel. Off is "remember
// without asking": remember runs unasked while the conversation has read no
// document or note, and proposals from such a conversation are kept at once.
func WithApproval(on bool) Option { return func(s *Store) { s.approval.Store(on) } }

// WithLearning makes the post-run step ask the model for facts and
// preferences worth keeping after each completed run. It is off by default:
// on a small machine that call competes with the user's next message.
func WithLearning(on bool) Option { return func(s *Store) { s.learn.Store(on) } }

// WithBudget sets the token budget of the working-memory zone (estimated at
// four characters a token). Default 600.
func WithBudget(tokens int) Option { return func(s *Store) { s.budget = tokens } }

// Open migrates the memory tables, loads the vectors and brings the index up
// to date with the log (rebuilding it if its tables were dropped).
func Open(ctx context.Context, db *sql.DB, log Reader, opts ...Option) (*Store, error) {
	s := &Store{db: db, log: log, now: time.Now, newID: randomID, logger: slog.Default(), budget: 600}
	s.approval.Store(true)
	for _, o := range opts {
		o(s)
	}
	if s.emb == nil {
		s.emb = hashvec.New(hashvec.Default)
	}
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	s.vecs.Store(vecindex.New())
	if err := s.loadVectors(ctx); err != nil {
		return nil, err
	}
	if err := s.CatchUp(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Attach gives the store its writer; until then every write fails with
// ErrNoWriter. (The runtime is built with memory's facets, so it exists
// only after the store.)
func (s *Store) Attach(w Writer) { s.writer.Store(&w) }

// Approval says whether what the assistant remembers needs the user's
// approval (see WithApproval).
func (s *Store) Approval() bool { return s.approval.Load() }

// SetApproval changes it for later runs and writes; items already kept stay
// kept.
func (s *Store) SetApproval(on bool) { s.approval.Store(on) }

// Learning says whether the post-run step asks the model for proposals.
func (s *Store) Learning() bool { return s.learn.Load() }

// SetLearning turns proposals after each run on or off.
func (s *Store) SetLearning(on bool) { s.learn.Store(on) }

func randomID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// checkText returns the trimmed text or a sentence saying what is wrong.
func checkText(text string) (string, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "", badInput(ErrEmptyText, "The memory text is empty: write the fact or preference to remember.")
	}
	if n := utf8.RuneCountInString(t); n > MaxText {
		return "", badInput(ErrTooLong, fmt.Sprintf("The memory text is %d characters; keep one memory under %d — shorten it or split it into several.", n, MaxText))
	}
	return t, nil
}

func checkKind(kind, note string) (string, error) {
	switch kind {
	case Fact, Preference:
		return "", nil
	case Working:
		switch note {
		case "":
			return Conclusion, nil
		case Conclusion, OpenTask, Attempt:
			return note, nil
		}
		return "", badInput(ErrBadKind, fmt.Sprintf("Working memory notes are conclusion, open or attempt, not %q.", note))
	}
	return "", badInput(ErrBadKind, fmt.Sprintf("A memory is a fact, a preference or working memory, not %q.", kind))
}

// append writes drafts to a session's log and applies them to the index.
func (s *Store) append(ctx context.Context, session string, drafts ...event.Draft) ([]event.Event, error) {
	w := s.writer.Load()
	if w == nil {
		return nil, ErrNoWriter
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	evs, err := (*w).AppendPlain(ctx, session, drafts...)
	if err != nil {
		return nil, err
	}
	// The log is the truth: if indexing fails now, the next CatchUp applies
	// these events.
	if err := s.applyEvents(context.WithoutCancel(ctx), session, evs); err != nil {
		return evs, err
	}
	return evs, s.embedMissing(context.WithoutCancel(ctx))
}

// Remember adds an item to the session's memory, not asked about. Sources
// are seqs of the session's events it came from. Long-term items wait for
// approval when the setting asks for it.
func (s *Store) Remember(ctx context.Context, session, kind, note, text, origin string, sources []int64) (Item, error) {
	return s.remember(ctx, session, event.MemoryRememberPayload{Kind: kind, Note: note, Text: text, Origin: origin,
		Pending: kind != Working && s.approval.Load()}, sources)
}

// remember writes p (its id made here) once its text and kind are checked.
// Approved is "unasked" for an item kept at once, unless p says otherwise.
func (s *Store) remember(ctx context.Context, session string, p event.MemoryRememberPayload, sources []int64) (Item, error) {
	var err error
	if p.Text, err = checkText(p.Text); err != nil {
		return Item{}, err
	}
	if p.Note, err = checkKind(p.Kind, p.Note); err != nil {
		return Item{}, err
	}
	p.ID = s.newID()
	switch {
	case p.Pending:
		p.Approved = ""
	case p.Approved == "":
		p.Approved = WithoutAsking
	}
	if _, err := s.append(ctx, session, event.Draft{Type: event.MemoryRemember, Time: s.now(), Sources: sources, Payload: p}); err != nil {
		return Item{}, err
	}
	return s.Get(ctx, p.ID)
}

// WorkingItem is one piece of working memory: a conclusion reached, an open
// sub-task, or a path tried and its outcome (Note).
type WorkingItem struct {
	Note string // conclusion, open or attempt
	Text string
}

// NoteWorking writes working-memory items for a session in one append (all
// or nothing), each citing sources: seqs of that session's events it was
// drawn from, which must exist. Compaction's "extract structured facts"
// strategy calls it; the items' origin is "compaction". An empty or
// over-long text or an unknown note is refused before anything is written.
func (s *Store) NoteWorking(ctx context.Context, session string, items []WorkingItem, sources []int64) error {
	return s.noteWorking(ctx, session, ByCompaction, items, sources)
}

func (s *Store) noteWorking(ctx context.Context, session, origin string, items []WorkingItem, sources []int64) error {
	if len(items) == 0 {
		return nil
	}
	drafts := make([]event.Draft, 0, len(items))
	for _, it := range items {
		text, err := checkText(it.Text)
		if err != nil {
			return err
		}
		note, err := checkKind(Working, it.Note)
		if err != nil {
			return err
		}
		drafts = append(drafts, event.Draft{Type: event.MemoryRemember, Time: s.now(), Sources: sources,
			Payload: event.MemoryRememberPayload{ID: s.newID(), Kind: Working, Note: note, Text: text, Origin: origin, Approved: OwnNote}})
	}
	_, err := s.append(ctx, session, drafts...)
	return err
}

// Edit replaces an item's text (the user, from the memory panel).
func (s *Store) Edit(ctx context.Context, id, text string) (Item, error) {
	text, err := checkText(text)
	if err != nil {
		return Item{}, err
	}
	it, err := s.Get(ctx, id)
	if err != nil {
		return Item{}, err
	}
	if _, err := s.append(ctx, it.Session, event.Draft{Type: event.MemoryEdit, Time: s.now(), Sources: []int64{it.Seq},
		Payload: event.MemoryEditPayload{ID: id, Text: text}}); err != nil {
		return Item{}, err
	}
	return s.Get(ctx, id)
}

// Forget removes an item from what the model sees. The event goes to the
// item's own session, so each item's history is in one log.
func (s *Store) Forget(ctx context.Context, id, origin string) error {
	return s.forget(ctx, id, origin, "")
}

func (s *Store) forget(ctx context.Context, id, origin, callID string) error {
	it, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	_, err = s.append(ctx, it.Session, event.Draft{Type: event.MemoryForget, Time: s.now(), Sources: []int64{it.Seq},
		Payload: event.MemoryForgetPayload{ID: id, Origin: origin, CallID: callID}})
	return err
}

// Review approves (keeps) or rejects (drops) a pending item.
func (s *Store) Review(ctx context.Context, id string, approve bool) error {
	it, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if it.Status != Pending {
		return conflict(ErrNotPending, "This memory is already kept; only pending items are approved or rejected.")
	}
	_, err = s.append(ctx, it.Session, event.Draft{Type: event.MemoryReview, Time: s.now(), Sources: []int64{it.Seq},
		Payload: event.MemoryReviewPayload{ID: id, Approved: approve}})
	return err
}

const itemColumns = `rowid, id, session, kind, note, text, status, origin, approved, seq, events, sources, created_ns, updated_ns`

func scanItem(row interface{ Scan(...any) error }) (int64, Item, error) {
	var (
		it              Item
		rowid           int64
		events, sources string
		created, upd    int64
	)
	if err := row.Scan(&rowid, &it.ID, &it.Session, &it.Kind, &it.Note, &it.Text, &it.Status, &it.Origin, &it.Approved, &it.Seq,
		&events, &sources, &created, &upd); err != nil {
		return 0, Item{}, err
	}
	if err := json.Unmarshal([]byte(events), &it.Events); err != nil {
		return 0, Item{}, fmt.Errorf("memory: item %s: events: %w", it.ID, err)
	}
	if err := json.Unmarshal([]byte(sources), &it.Sources); err != nil {
		return 0, Item{}, fmt.Errorf("memory: item %s: sources: %w", it.ID, err)
	}
	it.CreatedAt, it.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, upd).UTC()
	return rowid, it, nil
}

// Get returns one item.
func (s *Store) Get(ctx context.Context, id string) (Item, error) {
	_, it, err := scanItem(s.db.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM memory_items WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, notFound(fmt.Sprintf("No memory item has the id %q (it may have been forgotten); list the memory to see the ids.", id))
	}
	if err != nil {
		return Item{}, fmt.Errorf("memory: %w", err)
	}
	return it, nil
}

// List returns every item, long-term first, each kind newest first.
func (s *Store) List(ctx context.Context) ([]Item, error) {
	return s.query(ctx, `SELECT `+itemColumns+` FROM memory_items
		ORDER BY CASE kind WHEN 'preference' THEN 0 WHEN 'fact' THEN 1 ELSE 2 END, updated_ns DESC, rowid DESC`)
}

// Session returns a session's working memory, oldest first.
func (s *Store) Session(ctx context.Context, session string) ([]Item, error) {
	return s.query(ctx, `SELECT `+itemColumns+` FROM memory_items WHERE session = ? AND kind = 'working' ORDER BY seq`, session)
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Item, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	defer rows.Close()
	out := []Item{}
	for rows.Next() {
		_, it, err := scanItem(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}
