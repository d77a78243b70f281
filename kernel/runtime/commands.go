package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"quire/kernel/event"
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
	case errors.Is(err, ErrSessionBusy), errors.Is(err, event.ErrSessionExists):
		return nil, protocol.Classify(protocol.ErrConflict, err)
	case errors.Is(err, ErrEmptyMessage), errors.Is(err, event.ErrBadBranch):
		return nil, protocol.Classify(protocol.ErrBadPayload, err)
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
	case protocol.CancelRun:
		p, err := decode[protocol.SessionRef](cmd)
		if err != nil {
			return nil, err
		}
		r.cancel(p.Session, ErrCancelledByUser)
		return json.RawMessage(`{}`), nil
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
	title := cleanTitle(p.Title)
	var parent *event.BranchPoint
	if p.Parent != "" {
		parent = &event.BranchPoint{Session: p.Parent, Seq: p.ParentSeq}
	}
	id := r.newID()
	at := r.now()
	// The result is known before the write (ids and times come from here),
	// so it is stored with the effect.
	o, res, err := withResult(once, protocol.Session{ID: id, Title: title, CreatedAt: at.UTC(), UpdatedAt: at.UTC(), Parent: p.Parent, ParentSeq: p.ParentSeq})
	if err != nil {
		return nil, err
	}
	var done *event.Done
	if _, err := r.feed.AppendWith(ctx, func(ctx context.Context) ([]event.Event, error) {
		evs, d, err := r.store.CreateSession(ctx, id, title, at, parent, o)
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

func cleanTitle(title string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "New chat"
	}
	if r := []rune(title); len(r) > 80 {
		title = string(r[:80]) + "…"
	}
	return title
}

func (r *Runtime) rename(ctx context.Context, p protocol.RenameSessionPayload, once *event.Once) (json.RawMessage, error) {
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

func (r *Runtime) delete(ctx context.Context, id string, once *event.Once) (json.RawMessage, error) {
	r.cancel(id, ErrSessionDeleted)
	r.waitIdle(id)
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

func (r *Runtime) cancel(id string, cause error) {
	r.mu.Lock()
	run, ok := r.running[id]
	r.mu.Unlock()
	if ok {
		run.cancel(cause)
	}
}

// waitIdle waits until the session's run, if any, has written its terminal
// event; runs end promptly once cancelled, since their writes are detached.
func (r *Runtime) waitIdle(id string) {
	r.mu.Lock()
	run, ok := r.running[id]
	r.mu.Unlock()
	if ok {
		<-run.done
	}
}
