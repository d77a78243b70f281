package assembly

import (
	"context"
	"fmt"

	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
)

// Calls is the inspector's port (host.Calls), in either mode: it only
// reads the log, through the runtime of an Owner or the Reader.
func (p *Parts) Calls() host.Calls { return callsPort{p} }

type callsPort struct{ p *Parts }

// calls is what reads the calls: the Reader, or the runtime that sent them.
type calls interface {
	Calls(ctx context.Context, session, run string) (protocol.CallList, error)
	Call(ctx context.Context, session string, n int) (runtime.Inspected, error)
}

func (c callsPort) source() (calls, error) {
	switch {
	case c.p.reader != nil:
		return c.p.reader, nil
	case c.p.runtime != nil:
		return c.p.runtime, nil
	}
	return nil, fmt.Errorf("%w: %w", errNoDatabase, c.p.DatabaseError())
}

func (c callsPort) Calls(ctx context.Context, session, run string) (protocol.CallList, error) {
	src, err := c.source()
	if err != nil {
		return protocol.CallList{}, err
	}
	return src.Calls(ctx, session, run)
}

func (c callsPort) Call(ctx context.Context, session string, n int) (protocol.Call, error) {
	src, err := c.source()
	if err != nil {
		return protocol.Call{}, err
	}
	in, err := src.Call(ctx, session, n)
	if err != nil {
		return protocol.Call{}, err
	}
	body, err := requestBody(in.Request)
	if err != nil {
		return protocol.Call{}, err
	}
	in.Call.RequestBytes = len(replayed(body))
	return in.Call, nil
}

func (c callsPort) Request(ctx context.Context, session string, n int) ([]byte, error) {
	body, err := c.p.Request(ctx, session, n)
	if err != nil {
		return nil, err
	}
	return replayed(body), nil
}

// replayed is a request's body as `quire replay -request` prints it: one
// line. The inspector's copy is these bytes, so the two never differ.
func replayed(body []byte) []byte { return append(body[:len(body):len(body)], '\n') }
