package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"quire/kernel/core"
	"quire/kernel/event"
	"quire/kernel/prompt"
	"quire/kernel/protocol"
)

// Execute carries out a host's command. With an idempotency key, a repeat of
// the same command returns the first result with no second effect, and a
// different command under the same key is protocol.ErrIdempotencyConflict;
// the key is stored in the same transaction as the effect.
func (r *Runtime) Execute(ctx context.Context, cmd protocol.Command) (json.RawMessage, error) {
	if err := protocol.Compatible(cmd.Version); err != nil {
		return nil, err
	}
	var once *event.Once
	if cmd.IdempotencyKey != "" {
		fp, err := fingerprint(cmd)
		if err != nil {
			return nil, err
		}
		once = &event.Once{Key: cmd.IdempotencyKey, Fingerprint: fp}
	}
	res, err := r.execute(ctx, cmd, once)
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, event.ErrKeyReused):
		return nil, fmt.Errorf("%w: %q", protocol.ErrIdempotencyConflict, cmd.IdempotencyKey)
	case errors.Is(err, event.ErrNoSession):
		return nil, protocol.Classify(protocol.ErrNotFound, err)
	case errors.Is(err, event.ErrSessionExists), errors.Is(err, ErrNotAsked), errors.Is(err, ErrRunGoing),
		errors.Is(err, ErrNothingToContinue), errors.Is(err, event.ErrHasBranches), errors.Is(err, ErrOtherKind):
		return nil, protocol.Classify(protocol.ErrConflict, err)
	case errors.Is(err, ErrDamagedSession):
		return nil, protocol.Classify(protocol.ErrDamaged, err)
	case errors.Is(err, ErrEmptyMessage), errors.Is(err, event.ErrBadBranch), errors.Is(err, ErrNotAUserMessage), errors.Is(err, ErrNotAReply):
		return nil, protocol.Classify(protocol.ErrBadPayload, err)
	case errors.Is(err, event.ErrNoSpace):
		return nil, protocol.Classify(protocol.ErrNoSpace, err)
	}
	return nil, err
}

// fingerprint identifies a command's meaning: its type and its payload with
// keys sorted, so a retry that serialises the same payload differently still
// matches.
func fingerprint(cmd protocol.Command) (string, error) {
	var v any
	if err := json.Unmarshal(cmd.Payload, &v); err != nil {
		return "", fmt.Errorf("%w: %v", protocol.ErrBadPayload, err)
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(cmd.Type+"\x00"), canon...))
	return hex.EncodeToString(sum[:]), nil
}

func decode[T any](cmd protocol.Command) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(cmd.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, fmt.Errorf("%w (%s): %v", protocol.ErrBadPayload, cmd.Type, err)
	}
	return v, nil
}

func (r *Runtime) execute(ctx context.Context, cmd protocol.Command, once *event.Once) (json.RawMessage, error) {
	switch cmd.Type {
	case protocol.CreateSession:
		p, err := decode[protocol.CreateSessionPayload](cmd)
		if err != nil {
			return nil, err
		}
		return r.createSession(ctx, p, once)
	case protocol.RenameSession:
		p, err := decode[protocol.RenameSessionPayload](cmd)
		if err != nil {
			return nil, err
		}
		return r.rename(ctx, p, once)
	case protocol.DeleteSession:
		p, err := decode[protocol.SessionRef](cmd)
		if err != nil {
			return nil, err
		}
		return r.delete(ctx, p.Session, once)
	case protocol.SendMessage:
		p, err := decode[protocol.SendMessagePayload](cmd)
		if err != nil {
			return nil, err
		}
		return r.submit(ctx, p, once)
	case protocol.EditMessage:
		p, err := decode[protocol.EditMessagePayload](cmd)
		if err != nil {
			return nil, err
		}
		return r.edit(ctx, p, once)
	case protocol.Regenerate:
		p, err := decode[protocol.RegeneratePayload](cmd)
		if err != nil {
			return nil, err
		}
		return r.regenerate(ctx, p, once)
	case protocol.ContinueRun:
		p, err := decode[protocol.SessionRef](cmd)
		if err != nil {
			return nil, err
		}
		return r.continueRun(ctx, p.Session, once)
	case protocol.CancelRun:
		p, err := decode[protocol.SessionRef](cmd)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{}`), r.cancel(ctx, p.Session, ErrCancelledByUser)
	case protocol.AnswerAsk:
		p, err := decode[protocol.AnswerPayload](cmd)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{}`), r.answer(ctx, p)
	}
	return nil, fmt.Errorf("%w %q", protocol.ErrUnknownCommand, cmd.Type)
}

// withResult gives once the result to store with the effect.
func withResult(once *event.Once, v any) (*event.Once, json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	if once == nil {
		return nil, b, nil
	}
	o := *once
	o.Result = b
	return &o, b, nil
}

func (r *Runtime) createSession(ctx context.Context, p protocol.CreateSessionPayload, once *event.Once) (json.RawMessage, error) {
	if p.Kind != "" && p.Kind != protocol.SessionWorker && p.Kind != protocol.SessionEvolution && p.Kind != protocol.SessionStanding {
		return nil, fmt.Errorf("%w: no session kind %q", protocol.ErrBadPayload, p.Kind)
	}
	title := cleanTitle(p.Title)
	var parent *event.BranchPoint
	if p.Parent != "" {
		parent = &event.BranchPoint{Session: p.Parent, Seq: p.ParentSeq}
	}
	id := r.newID()
	at := r.now()
	// The result is known before the write (ids and times come from here),
	// so it is stored with the effect.
	o, res, err := withResult(once, protocol.Session{ID: id, Title: title, CreatedAt: at.UTC(), UpdatedAt: at.UTC(), Parent: p.Parent, ParentSeq: p.ParentSeq, Kind: p.Kind})
	if err != nil {
		return nil, err
	}
	var done *event.Done
	if _, err := r.feed.AppendWith(ctx, func(ctx context.Context) ([]event.Event, error) {
		evs, d, err := r.store.CreateSessionOf(ctx, id, at, event.SessionCreatedPayload{Title: title, Parent: parent, Kind: p.Kind}, o)
		done = d
		return evs, err
	}); err != nil {
		return nil, err
	}
	if done != nil {
		return done.Result, nil
	}
	return res, nil
}

// defaultTitle names a session created without a title until its first
// message names it (autoTitle).
const defaultTitle = "New chat"

func cleanTitle(title string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return defaultTitle
	}
	if r := []rune(title); len(r) > 80 {
		title = string(r[:80]) + "…"
	}
	return title
}

func (r *Runtime) rename(ctx context.Context, p protocol.RenameSessionPayload, once *event.Once) (json.RawMessage, error) {
	if why := r.damage(p.Session); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrDamagedSession, why)
	}
	draft := event.Draft{Type: event.SessionRenamed, Time: r.now(), Payload: event.SessionRenamedPayload{Title: cleanTitle(p.Title)}}
	if once == nil {
		if _, err := r.feed.Append(ctx, p.Session, draft); err != nil {
			return nil, err
		}
	} else {
		o, _, err := withResult(once, struct{}{})
		if err != nil {
			return nil, err
		}
		var done *event.Done
		if _, err := r.feed.AppendWith(ctx, func(ctx context.Context) ([]event.Event, error) {
			evs, d, err := r.store.AppendOnce(ctx, *o, p.Session, draft)
			done = d
			return evs, err
		}); err != nil {
			return nil, err
		}
		_ = done // a repeat returns the session as it is now, like the first did
	}
	s, err := r.session(ctx, p.Session)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// delete removes a session, a damaged one too: deleting is the one thing a
// user can do with a conversation whose log cannot be read.
//
// A conversation other conversations branch from is refused
// (event.ErrHasBranches) before its run is touched: their histories begin
// with its events. The store checks again in the deleting transaction, for
// a branch made in between.
func (r *Runtime) delete(ctx context.Context, id string, once *event.Once) (json.RawMessage, error) {
	if n, err := r.branches(ctx, id); err != nil {
		return nil, err
	} else if n > 0 {
		return nil, fmt.Errorf("%w (%d): delete those branches first, since each begins with its history", event.ErrHasBranches, n)
	}
	r.detach(id)
	o, res, err := withResult(once, struct{}{})
	if err != nil {
		return nil, err
	}
	done, err := r.store.DeleteSession(ctx, id, o)
	if err != nil {
		return nil, err
	}
	if done == nil {
		r.feed.Announce(ctx)
	}
	return res, nil
}

// cancel asks the session's open run to stop, with cause as its reason.
// Stopping a session with no open run does nothing. A run whose work could
// not be logged (a fault) is ended by the Stop itself when the log takes its
// terminal; while the disk is still full the Stop fails with
// event.ErrNoSpace, and the run's work is stopped all the same.
func (r *Runtime) cancel(ctx context.Context, id string, cause error) error {
	s, err := r.attach(ctx, id)
	if err != nil {
		return err
	}
	m := s.model()
	if !m.Open() {
		return nil
	}
	// The cancel names the run it was meant for, so a Stop that arrives as
	// that run ends cannot stop the next one.
	return s.deliver(ctx, fact(event.CancelRequested, r.now(), m.Run.ID, event.CancelRequestedPayload{Cause: cause.Error()}))
}

// ErrNotAsked: an answer came for a question that is not open.
var ErrNotAsked = errors.New("there is no open question about those calls (answered already, or the request ended)")

func (r *Runtime) answer(ctx context.Context, p protocol.AnswerPayload) error {
	s, err := r.attach(ctx, p.Session)
	if err != nil {
		return err
	}
	m := s.model()
	// An answer must be about exactly the calls of the open question: one
	// about other calls (a stale page, a question already answered) would
	// be ignored by the loop, and the host would never know.
	if m.Phase != core.AwaitingPermission || !sameCalls(p.CallIDs, m.Run.Asking) {
		return ErrNotAsked
	}
	return s.deliver(ctx, fact(event.PermissionAnswered, r.now(), m.Run.ID,
		event.PermissionAnsweredPayload{CallIDs: p.CallIDs, Allowed: p.Allowed, Feedback: p.Feedback}))
}

// sameCalls reports whether a and b hold the same call ids.
func sameCalls(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, id := range a {
		if !slices.Contains(b, id) {
			return false
		}
	}
	return true
}

// submit records an input. A follow-up to an idle session opens a run at
// once; otherwise the input waits in the session's queue for its turn
// (seed 000 §6). It returns once the input is durably in the log, with the
// id of the run it opens or will open.
func (r *Runtime) submit(ctx context.Context, p protocol.SendMessagePayload, once *event.Once) (json.RawMessage, error) {
	if strings.TrimSpace(p.Text) == "" {
		return nil, ErrEmptyMessage
	}
	intent := core.Intent(p.Intent)
	switch intent {
	case "":
		intent = core.FollowUp
	case core.FollowUp, core.Steer, core.Inject:
	default:
		return nil, fmt.Errorf("%w: intent %q is not follow_up, steer or inject", protocol.ErrBadPayload, p.Intent)
	}
	return r.input(ctx, p.Session, p.Text, intent, "", once)
}

// input records an input of kind ("" for the user's own words) to session.
func (r *Runtime) input(ctx context.Context, session, text string, intent core.Intent, kind string, once *event.Once) (json.RawMessage, error) {
	if err := r.drives(ctx, session); err != nil {
		return nil, err
	}
	s, err := r.attach(ctx, session)
	if err != nil {
		return nil, err
	}
	in := event.InputReceivedPayload{InputID: r.newID(), Intent: string(intent), Text: text, Kind: kind}
	result := protocol.SendResult{}
	if intent != core.Inject {
		// Any input but an inject may open a run — a steer too, if the run
		// it was meant for has ended by the time it is taken up.
		// The run's id is known before its context is assembled, so a
		// fragment resolved once per run (prompt.Run) keys it by this run.
		in.RunID = r.newID()
		caps, tools, err := r.snapshot(prompt.WithRun(prompt.WithRequest(ctx, text), in.RunID), session)
		if err != nil {
			return nil, err
		}
		in.Caps = caps
		s.freeze(in.RunID, tools)
		result.RunID = in.RunID
	}
	if m := s.model(); intent != core.FollowUp && m.Open() {
		result.RunID = m.Run.ID
	}
	o, res, err := withResult(once, result)
	if err != nil {
		return nil, err
	}
	prior, err := s.deliverOnce(ctx, o, fact(event.InputReceived, r.now(), "", in))
	if err != nil {
		return nil, err
	}
	if prior != nil {
		return prior, nil
	}
	if kind == "" {
		// Only the user's own words name a chat (never a continue's text).
		r.autoTitle(ctx, session, text)
	}
	return res, nil
}

// autoTitle names a session nobody has named yet ("New chat", as created)
// after the message that starts it, from that message's words — no model
// call, so nothing the model saw is involved —, as a plain session.renamed
// marked Auto: the sessions index never lets it replace a title the user
// gave, even one given between this check and the append. A title that
// cannot be written costs the message nothing: it is logged, and the chat
// keeps its old name.
func (r *Runtime) autoTitle(ctx context.Context, id, text string) {
	s, err := r.store.Session(ctx, id)
	if err != nil || s.TitleSource != event.TitleCreated || s.Title != defaultTitle {
		return
	}
	draft := event.Draft{Type: event.SessionRenamed, Time: r.now(), Payload: event.SessionRenamedPayload{Title: titleFrom(text), Auto: true}}
	if _, err := r.feed.Append(ctx, id, draft); err != nil {
		r.log.Warn("could not title the conversation", "session", id, "err", err)
	}
}

// autoTitleChars is about how long an automatic title is.
const autoTitleChars = 40

// titleFrom is a title from a first message: one line, about
// autoTitleChars characters, cut at a word when one ends in its second half.
func titleFrom(text string) string {
	line := []rune(strings.Join(strings.Fields(text), " "))
	if len(line) <= autoTitleChars {
		return cleanTitle(string(line))
	}
	cut := line[:autoTitleChars]
	if i := lastSpace(cut); i >= autoTitleChars/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(string(cut), " ") + "…"
}

func lastSpace(rs []rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == ' ' {
			return i
		}
	}
	return -1
}
