package tool

import "context"

type sessionKey struct{}

// WithSession tells a running tool which session called it, for tools whose
// effect is an event in that session's log (memory writes).
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionOf is the calling session ("" outside a run).
func SessionOf(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}
