package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"quire/kernel/event"
)

// Session is a row of the sessions index (see event.SessionSummary).
type Session = event.SessionSummary

// Once and Done are the idempotency record of a write (see event.Once).
type (
	Once = event.Once
	Done = event.Done
)

// CreateSession starts a session: its first event (seq 0) is session.created.
// With once, a repeat of the same request returns the first result instead.
func (s *Store) CreateSession(ctx context.Context, id, title string, at time.Time, parent *event.BranchPoint, once *Once) ([]event.Event, *Done, error) {
	return s.CreateSessionOf(ctx, id, at, event.SessionCreatedPayload{Title: title, Parent: parent}, once)
}

// CreateSessionOf is CreateSession with the whole payload of its first
// event: a session of another kind than the user's chat (p.Kind).
func (s *Store) CreateSessionOf(ctx context.Context, id string, at time.Time, p event.SessionCreatedPayload, once *Once) ([]event.Event, *Done, error) {
	return s.write(ctx, id, &creation{parent: p.Parent}, once, []event.Draft{{
		Type: event.SessionCreated, Time: at, Payload: p,
	}})
}

// Append adds drafts to the end of an existing session's log, atomically: all
// of them get consecutive seqs, or none is stored. It returns the stored events.
func (s *Store) Append(ctx context.Context, session string, drafts ...event.Draft) ([]event.Event, error) {
	evs, _, err := s.write(ctx, session, nil, nil, drafts)
	return evs, err
}

// AppendOnce is Append made idempotent by once.
func (s *Store) AppendOnce(ctx context.Context, once Once, session string, drafts ...event.Draft) ([]event.Event, *Done, error) {
	return s.write(ctx, session, nil, &once, drafts)
}

type creation struct{ parent *event.BranchPoint }

// write stores drafts in one transaction; a write the disk had no room for
// is event.ErrNoSpace (and stored nothing).
func (s *Store) write(ctx context.Context, session string, create *creation, once *Once, drafts []event.Draft) ([]event.Event, *Done, error) {
	evs, done, err := s.writeTx(ctx, session, create, once, drafts)
	return evs, done, noSpace(err)
}

func (s *Store) writeTx(ctx context.Context, session string, create *creation, once *Once, drafts []event.Draft) ([]event.Event, *Done, error) {
	if len(drafts) == 0 {
		return nil, nil, ErrEmptyAppend
	}
	if err := s.refusesWrites(); err != nil {
		return nil, nil, err
	}
	// Encode everything before the transaction: a bad draft must not leave a
	// half-written batch, and validation must not hold the write lock.
	encoded := make([]event.Encoded, len(drafts))
	for i, d := range drafts {
		e, err := event.Encode(d)
		if err != nil {
			return nil, nil, err
		}
		encoded[i] = e
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("append to %s: %w", session, err)
	}
	defer tx.Rollback()
	if err := s.pages.apply(ctx, tx); err != nil {
		return nil, nil, fmt.Errorf("append to %s: %w", session, err)
	}

	if once != nil {
		done, err := claim(ctx, tx, *once)
		if err != nil || done != nil {
			return nil, done, err
		}
	}

	var last, replaces int64
	source := titleCreated
	head, err := s.txStmt(ctx, tx, "SELECT last_seq, replaces, title_source FROM sessions WHERE id = ?")
	if err != nil {
		return nil, nil, fmt.Errorf("append to %s: %w", session, err)
	}
	err = head.QueryRowContext(ctx, session).Scan(&last, &replaces, &source)
	switch {
	case create != nil && err == nil:
		return nil, nil, fmt.Errorf("%w: %s", ErrSessionExists, session)
	case create != nil && errors.Is(err, sql.ErrNoRows):
		last = -1
		if err := checkBranch(ctx, tx, create.parent); err != nil {
			return nil, nil, err
		}
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil, fmt.Errorf("%w: %s", ErrNoSession, session)
	case err != nil:
		return nil, nil, fmt.Errorf("append to %s: %w", session, err)
	}

	out := make([]event.Event, len(encoded))
	title, titled := "", false
	for i, e := range encoded {
		seq := last + 1 + int64(i)
		if err := e.CheckRefs(seq); err != nil {
			return nil, nil, fmt.Errorf("session %s: %w", session, err)
		}
		out[i] = event.Event{Session: session, Seq: seq, Type: e.Type, Time: e.Time, RunID: e.RunID,
			Ignorable: e.Ignorable, Visibility: e.Visibility, Sources: e.Sources, Payload: e.Payload}
		// An automatic title never replaces one the user gave.
		if t, from, ok := titleOf(out[i]); ok && (from != titleAuto || source != titleUser) {
			title, source, titled = t, from, true
		}
		if e.Type == event.HistoryReplace {
			replaces++
		}
	}
	if err := s.insertEvents(ctx, tx, out); err != nil {
		return nil, nil, fmt.Errorf("append to %s: %w", session, err)
	}
	if err := s.indexSaid(ctx, tx, out); err != nil {
		return nil, nil, fmt.Errorf("append to %s: %w", session, err)
	}
	newLast := last + int64(len(encoded))
	at := encoded[len(encoded)-1].Time.UnixNano()
	switch {
	case create != nil:
		var parent, parentSeq any
		if p := create.parent; p != nil {
			parent, parentSeq = p.Session, p.Seq
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, title, title_source, created_ns, updated_ns, last_seq, replaces, parent, parent_seq)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, session, title, source, encoded[0].Time.UnixNano(), at, newLast, replaces, parent, parentSeq)
	case titled:
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET title = ?, title_source = ?, updated_ns = ?, last_seq = ?, replaces = ? WHERE id = ?`,
			title, source, at, newLast, replaces, session)
	default:
		var st *sql.Stmt
		if st, err = s.txStmt(ctx, tx, `UPDATE sessions SET updated_ns = ?, last_seq = ?, replaces = ? WHERE id = ?`); err == nil {
			_, err = st.ExecContext(ctx, at, newLast, replaces, session)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("append to %s: index: %w", session, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, fmt.Errorf("append to %s: commit: %w", session, err)
	}
	return out, nil, nil
}

// insertRows is how many events one INSERT carries: multi-row inserts cut
// the per-statement cost that dominates batched deltas (9 parameters a row,
// well under SQLite's limit of 32766).
const insertRows = 64

func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, evs []event.Event) error {
	for start := 0; start < len(evs); start += insertRows {
		chunk := evs[start:min(start+insertRows, len(evs))]
		var q strings.Builder
		q.WriteString("INSERT INTO events (session, seq, type, time_ns, run_id, ignorable, visibility, sources, payload) VALUES ")
		args := make([]any, 0, len(chunk)*9)
		for i, e := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?,?,?,?,?,?,?,?,?)")
			args = append(args, e.Session, e.Seq, string(e.Type), e.Time.UnixNano(), e.RunID,
				e.Ignorable, string(e.Visibility), joinSeqs(e.Sources), []byte(e.Payload))
		}
		st, err := s.txStmt(ctx, tx, q.String())
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("events %d..%d: %w", chunk[0].Seq, chunk[len(chunk)-1].Seq, err)
		}
	}
	return nil
}

// claim records once's key in tx, or reports the earlier write with that key.
func claim(ctx context.Context, tx *sql.Tx, once Once) (*Done, error) {
	var fingerprint string
	var result []byte
	err := tx.QueryRowContext(ctx, "SELECT fingerprint, result FROM commands WHERE key = ?", once.Key).Scan(&fingerprint, &result)
	switch {
	case err == nil && fingerprint == once.Fingerprint:
		return &Done{Result: result}, nil
	case err == nil:
		return nil, fmt.Errorf("%w (key %q)", ErrKeyReused, once.Key)
	case !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("idempotency key %q: %w", once.Key, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO commands (key, fingerprint, result, created_ns) VALUES (?, ?, ?, ?)",
		once.Key, once.Fingerprint, once.Result, time.Now().UnixNano()); err != nil {
		return nil, fmt.Errorf("idempotency key %q: %w", once.Key, err)
	}
	return nil, nil
}

// EventsOfType returns the session's events of one type, in seq order.
func (s *Store) EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error) {
	// Through events_by_type: the session's events of one type, not a
	// scan of its whole log (a step reads them, issue 30).
	return s.query(ctx, session, 0, -1, "events INDEXED BY events_by_type", " AND type = '"+strings.ReplaceAll(string(typ), "'", "''")+"'")
}

// SessionsToRecover lists what a start must look at before anything else:
// the sessions whose last run.started has no run.finished after it (the
// runs a crash may have left open), and those holding an event of a type
// this version does not know and may not skip (written by a newer Quire,
// or by something else), which every read would refuse. Both are read
// through events_by_type, so a start reads the runs' starts and ends and
// one index entry per type, not the whole log (issue 30: a start's cost
// grew with every event ever logged).
func (s *Store) SessionsToRecover(ctx context.Context) (openRuns, unknown []string, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT st.session FROM (
			SELECT session, MAX(seq) AS started FROM events INDEXED BY events_by_type
			WHERE type = 'run.started' GROUP BY session) st
		WHERE st.started > COALESCE((SELECT MAX(seq) FROM events f INDEXED BY events_by_type
			WHERE f.type = 'run.finished' AND f.session = st.session), -1)
		ORDER BY st.session`)
	if err != nil {
		return nil, nil, fmt.Errorf("find the sessions to recover: %w", err)
	}
	if openRuns, err = scanStrings(rows); err != nil {
		return nil, nil, fmt.Errorf("find the sessions to recover: %w", err)
	}
	// The types in the log, one index lookup each (a loose scan).
	rows, err = s.db.QueryContext(ctx, `WITH RECURSIVE t(type) AS (
			SELECT MIN(type) FROM events INDEXED BY events_by_type
			UNION ALL
			SELECT (SELECT MIN(type) FROM events INDEXED BY events_by_type WHERE type > t.type) FROM t WHERE t.type IS NOT NULL)
		SELECT type FROM t WHERE type IS NOT NULL`)
	if err != nil {
		return nil, nil, fmt.Errorf("find the sessions to recover: %w", err)
	}
	types, err := scanStrings(rows)
	if err != nil {
		return nil, nil, fmt.Errorf("find the sessions to recover: %w", err)
	}
	known := map[string]bool{}
	for _, t := range event.Types(false) {
		known[string(t)] = true
	}
	var strange []string
	for _, t := range types {
		if !known[t] {
			strange = append(strange, "'"+strings.ReplaceAll(t, "'", "''")+"'")
		}
	}
	if len(strange) == 0 {
		return openRuns, nil, nil
	}
	rows, err = s.db.QueryContext(ctx, `SELECT DISTINCT session FROM events INDEXED BY events_by_type
		WHERE type IN (`+strings.Join(strange, ",")+`) AND ignorable = 0 ORDER BY session`)
	if err != nil {
		return nil, nil, fmt.Errorf("find the sessions to recover: %w", err)
	}
	if unknown, err = scanStrings(rows); err != nil {
		return nil, nil, fmt.Errorf("find the sessions to recover: %w", err)
	}
	return openRuns, unknown, nil
}

// scanStrings reads rows of one text column, and closes them.
func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// LastSeqOf is the seq of the session's last event of type typ in run runID
// (-1 when there is none).
func (s *Store) LastSeqOf(ctx context.Context, session string, typ event.Type, runID string) (int64, error) {
	var seq sql.NullInt64
	st, err := s.stmt(ctx, `SELECT MAX(seq) FROM events WHERE session = ? AND type = ? AND run_id = ?`)
	if err == nil {
		err = st.QueryRowContext(ctx, session, string(typ), runID).Scan(&seq)
	}
	if err != nil {
		return -1, fmt.Errorf("read %s: %w", session, err)
	}
	if !seq.Valid {
		return -1, nil
	}
	return seq.Int64, nil
}

// LastSeqOfAny is the seq of the session's last event in run runID of any
// of the types (-1 when there is none): one query, where a step's anchor
// asked LastSeqOf once a type (issue 30).
func (s *Store) LastSeqOfAny(ctx context.Context, session, runID string, types ...event.Type) (int64, error) {
	if len(types) == 0 {
		return -1, nil
	}
	q := `SELECT MAX(seq) FROM events WHERE session = ? AND run_id = ? AND type IN (?` + strings.Repeat(",?", len(types)-1) + `)`
	args := make([]any, 0, len(types)+2)
	args = append(args, session, runID)
	for _, t := range types {
		args = append(args, string(t))
	}
	var seq sql.NullInt64
	st, err := s.stmt(ctx, q)
	if err == nil {
		err = st.QueryRowContext(ctx, args...).Scan(&seq)
	}
	if err != nil {
		return -1, fmt.Errorf("read %s: %w", session, err)
	}
	if !seq.Valid {
		return -1, nil
	}
	return seq.Int64, nil
}

// Recall returns what was stored under an idempotency key, if anything.
func (s *Store) Recall(ctx context.Context, key string) (fingerprint string, result []byte, found bool, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT fingerprint, result FROM commands WHERE key = ?", key).Scan(&fingerprint, &result)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("idempotency key %q: %w", key, err)
	}
	return fingerprint, result, true, nil
}

func checkBranch(ctx context.Context, tx *sql.Tx, p *event.BranchPoint) error {
	if p == nil {
		return nil
	}
	var last int64
	err := tx.QueryRowContext(ctx, "SELECT last_seq FROM sessions WHERE id = ?", p.Session).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: no session %s", ErrBadBranch, p.Session)
	}
	if err != nil {
		return err
	}
	if p.Seq < 0 || p.Seq > last {
		return fmt.Errorf("%w: session %s has events 0..%d, not %d", ErrBadBranch, p.Session, last, p.Seq)
	}
	return nil
}

// Where a session's title came from (sessions.title_source, and
// event.SessionSummary.TitleSource).
const (
	titleCreated = event.TitleCreated
	titleAuto    = event.TitleAuto
	titleUser    = event.TitleUser
)

// titleOf is the title an event gives its session, and where it came from.
func titleOf(e event.Event) (title, source string, ok bool) {
	switch e.Type {
	case event.SessionCreated:
		p, err := event.As[event.SessionCreatedPayload](e)
		return p.Title, titleCreated, err == nil
	case event.SessionRenamed:
		p, err := event.As[event.SessionRenamedPayload](e)
		if p.Auto {
			return p.Title, titleAuto, err == nil
		}
		return p.Title, titleUser, err == nil
	}
	return "", "", false
}

// Events returns the session's events with seq >= from, in seq order. Unknown
// ignorable events are skipped; an unknown event that may not be skipped is an
// error (*event.ErrNewerEvent) that names the session, seq and type.
func (s *Store) Events(ctx context.Context, session string, from int64) ([]event.Event, error) {
	return s.EventsRange(ctx, session, from, -1)
}

// EventsRange is Events up to and including seq to (-1: to the end).
func (s *Store) EventsRange(ctx context.Context, session string, from, to int64) ([]event.Event, error) {
	return s.query(ctx, session, from, to, "events", "")
}

// ProjectedEvents is EventsRange restricted to the types that become model
// messages — plus any unknown event that may not be skipped, so that reading
// less never means failing less loudly. Projection reads through it because
// streamed deltas outnumber messages tenfold.
func (s *Store) ProjectedEvents(ctx context.Context, session string, from, to int64) ([]event.Event, error) {
	return s.query(ctx, session, from, to, "events", projectedFilter)
}

var projectedFilter = " AND (type IN (" + quoteTypes(event.Types(true)) + ") OR (ignorable = 0 AND type NOT IN (" + knownTypes + ")))"

// knownTypes is every registered type as an SQL list.
var knownTypes = quoteTypes(event.Types(false))

func quoteTypes(ts []event.Type) string {
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i] = "'" + strings.ReplaceAll(string(t), "'", "''") + "'"
	}
	return strings.Join(q, ",")
}

func (s *Store) query(ctx context.Context, session string, from, to int64, table, filter string) ([]event.Event, error) {
	if to < 0 {
		to = 1<<63 - 1
	}
	st, err := s.stmt(ctx, `SELECT seq, type, time_ns, run_id, ignorable, visibility, sources, payload
		FROM `+table+` WHERE session = ? AND seq >= ? AND seq <= ?`+filter+` ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", session, err)
	}
	rows, err := st.QueryContext(ctx, session, from, to)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", session, err)
	}
	defer rows.Close()
	var out []event.Event
	for rows.Next() {
		var (
			e       event.Event
			typ     string
			timeNS  int64
			vis     string
			sources string
			payload []byte
		)
		if err := rows.Scan(&e.Seq, &typ, &timeNS, &e.RunID, &e.Ignorable, &vis, &sources, &payload); err != nil {
			return nil, fmt.Errorf("read %s: %w", session, err)
		}
		e.Session, e.Type, e.Visibility = session, event.Type(typ), event.Visibility(vis)
		e.Time = time.Unix(0, timeNS).UTC()
		e.Payload = json.RawMessage(payload)
		if e.Sources, err = splitSeqs(sources); err != nil {
			return nil, fmt.Errorf("read %s at %d: sources: %w", session, e.Seq, err)
		}
		known, err := event.Known(e)
		if err != nil {
			return nil, err
		}
		if known {
			out = append(out, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", session, err)
	}
	return out, nil
}

var sessionColumns = `id, title, title_source, created_ns, updated_ns, last_seq, replaces, parent, parent_seq, ` + kindOf("sessions.id")

// kindOf is the SQL for the Kind of the session named by col, read from its
// session.created payload (seq 0, one primary key lookup): the log stays
// the one place it is written, and no migration is needed. A payload that
// is not JSON (a damaged session) is a chat's "".
func kindOf(col string) string {
	return `COALESCE((SELECT CASE WHEN json_valid(CAST(e0.payload AS TEXT)) THEN json_extract(CAST(e0.payload AS TEXT), '$.kind') END
		FROM events e0 WHERE e0.session = ` + col + ` AND e0.seq = 0), '')`
}

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var r Session
	var created, updated int64
	var parent sql.NullString
	var parentSeq sql.NullInt64
	if err := row.Scan(&r.ID, &r.Title, &r.TitleSource, &created, &updated, &r.LastSeq, &r.Replaces, &parent, &parentSeq, &r.Kind); err != nil {
		return r, err
	}
	r.CreatedAt, r.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	if parent.Valid {
		r.Parent = &event.BranchPoint{Session: parent.String, Seq: parentSeq.Int64}
	}
	return r, nil
}

// Sessions lists every session, most recently updated first.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions ORDER BY updated_ns DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		r, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Session returns one session's summary.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	r, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	if err != nil {
		return r, fmt.Errorf("read session %s: %w", id, err)
	}
	return r, nil
}

// DeleteSession removes a session and its whole log. This is the one
// destructive operation: the user asked for the conversation to be gone.
// Branches of it keep their own events but can no longer be projected. A
// delete the disk had no room to journal is event.ErrNoSpace.
func (s *Store) DeleteSession(ctx context.Context, id string, once *Once) (*Done, error) {
	if err := s.refusesWrites(); err != nil {
		return nil, err
	}
	done, err := s.deleteTx(ctx, id, once)
	return done, noSpace(err)
}

func (s *Store) deleteTx(ctx context.Context, id string, once *Once) (*Done, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("delete session %s: %w", id, err)
	}
	defer tx.Rollback()
	if once != nil {
		done, err := claim(ctx, tx, *once)
		if err != nil || done != nil {
			return done, err
		}
	}
	// A branch's history begins with its parent's events: deleting the
	// parent would leave it unreadable. Checked in the transaction that
	// deletes, so a branch made meanwhile is counted (writes are serial).
	var branches int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions WHERE parent = ?", id).Scan(&branches); err != nil {
		return nil, fmt.Errorf("delete session %s: %w", id, err)
	}
	if branches > 0 {
		return nil, fmt.Errorf("%w: %s has %d", ErrHasBranches, id, branches)
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
	if err != nil {
		return nil, fmt.Errorf("delete session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM events WHERE session = ?", id); err != nil {
		return nil, fmt.Errorf("delete session %s: %w", id, err)
	}
	// What it said goes from the search with it.
	if _, err := tx.ExecContext(ctx, "DELETE FROM said WHERE session = ?", id); err != nil {
		return nil, fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil, tx.Commit()
}

func joinSeqs(seqs []int64) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = strconv.FormatInt(s, 10)
	}
	return strings.Join(parts, ",")
}

func splitSeqs(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
