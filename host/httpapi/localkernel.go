package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"quire/host"
	"quire/kernel/protocol"
)

// The owner's kernel over its local channel, for the terminal hosts
// (`quire chat`, `quire run`) while a window or `quire serve` owns the data
// folder: the same protocol.Kernel the owner's hosts use, built on the API
// routes (commands, sessions, events) and the event stream (/api/stream),
// with the public events only — what the window's page sees.

// maxAnswer bounds one answer read whole from the owner (a session's
// events are the largest).
const maxAnswer = 64 << 20

// maxSSELine bounds one line of an event stream (one append's events).
const maxSSELine = 16 << 20

// Kernel is the owner's kernel, reached over the local channel.
func (l *Local) Kernel() protocol.Kernel { return localKernel{l} }

// Close lets the channel's idle connections go.
func (l *Local) Close() { l.c.CloseIdleConnections() }

// Claim makes this client the one asked about session's permission
// questions while ctx lasts (host.Claims, on the owner): the open ones
// arrive whole, at once and on every change. It returns once the owner
// holds the claim, so a message sent afterwards has its questions here.
// Another client's claim is an *OwnerError (409).
func (l *Local) Claim(ctx context.Context, session string) (<-chan []protocol.Question, error) {
	events, _, err := l.stream(ctx, "/api/sessions/"+url.PathEscape(session)+"/claim")
	if err != nil {
		return nil, err
	}
	out := make(chan []protocol.Question)
	go func() {
		defer close(out)
		for e := range events {
			var list []protocol.Question
			if e.name != "questions" || json.Unmarshal(e.data, &list) != nil {
				continue
			}
			select {
			case out <- list:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

type localKernel struct{ l *Local }

func (k localKernel) Execute(ctx context.Context, cmd protocol.Command) (json.RawMessage, error) {
	var res json.RawMessage
	if err := k.l.do(ctx, http.MethodPost, "/api/commands", cmd, &res); err != nil {
		return nil, err
	}
	return res, nil
}

func (k localKernel) Sessions(ctx context.Context) ([]protocol.Session, error) {
	var list []protocol.Session
	err := k.l.do(ctx, http.MethodGet, "/api/sessions", nil, &list)
	return list, err
}

func (k localKernel) Events(ctx context.Context, session string, from int64) ([]protocol.Event, error) {
	var evs []protocol.Event
	err := k.l.do(ctx, http.MethodGet, "/api/sessions/"+url.PathEscape(session)+"/events?from="+strconv.FormatInt(from, 10), nil, &evs)
	return evs, err
}

// Follow reads the session's events from seq from on: the stream is
// opened first, then the stored events are read, so nothing appended in
// between is missed; what both give is sent once.
func (k localKernel) Follow(ctx context.Context, session string, from int64) (<-chan protocol.Event, func() error) {
	out := make(chan protocol.Event)
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		updates, errp, err := k.watch(ctx)
		if err != nil {
			ferr = err
			return
		}
		last := from - 1
		send := func(evs []protocol.Event) bool {
			for _, e := range evs {
				if e.Session != session || e.Seq <= last {
					continue
				}
				select {
				case out <- e:
					last = e.Seq
				case <-ctx.Done():
					return false
				}
			}
			return true
		}
		stored, err := k.Events(ctx, session, from)
		if err != nil {
			ferr = err
			return
		}
		if !send(stored) {
			return
		}
		for u := range updates {
			if !send(u.Events) {
				return
			}
		}
		ferr = errp()
	}()
	return out, func() error { <-done; return ferr }
}

func (k localKernel) Watch(ctx context.Context) (<-chan protocol.Update, func() error) {
	updates, errp, err := k.watch(ctx)
	if err != nil {
		ch := make(chan protocol.Update)
		close(ch)
		return ch, func() error { return err }
	}
	return updates, errp
}

// watch opens the event stream and returns once the owner is watching.
func (k localKernel) watch(ctx context.Context) (<-chan protocol.Update, func() error, error) {
	events, errp, err := k.l.stream(ctx, "/api/stream")
	if err != nil {
		return nil, nil, err
	}
	out := make(chan protocol.Update)
	var werr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		for e := range events {
			var u protocol.Update
			switch e.name {
			case "events":
				werr = json.Unmarshal(e.data, &u.Events)
			case "sessions":
				werr = json.Unmarshal(e.data, &u.Sessions)
			case "lagging":
				werr = protocol.ErrLagging
			default:
				continue
			}
			if werr != nil {
				return
			}
			select {
			case out <- u:
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() == nil {
			werr = errp()
		}
	}()
	return out, func() error { <-done; return werr }, nil
}

// sseEvent is one event of a stream: its name and data.
type sseEvent struct {
	name string
	data []byte
}

// stream opens the event stream at path and returns once the owner has
// answered it (it subscribes before it answers); the events follow until
// ctx ends or the stream does, and errp then says why it ended (nil when
// ctx ended it).
func (l *Local) stream(ctx context.Context, path string) (<-chan sseEvent, func() error, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://quire"+path, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set(ProtocolHeader, protocol.Version)
	resp, err := l.c.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, nil, answerError(resp)
	}
	out := make(chan sseEvent)
	var serr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), maxSSELine)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			select {
			case out <- sseEvent{name: name, data: []byte(data)}:
			case <-ctx.Done():
				return
			}
			name = ""
		}
		if ctx.Err() != nil {
			return
		}
		serr = sc.Err()
		if serr == nil {
			serr = fmt.Errorf("%w: the stream ended: %w", ErrNoAnswer, io.ErrUnexpectedEOF)
		}
	}()
	return out, func() error { <-done; return serr }, nil
}

var _ host.Driver = (*Local)(nil)
