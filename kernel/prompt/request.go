package prompt

import "context"

type requestKey struct{}

// WithRequest tells dynamic fragments the text of the input the assembly is
// for (the user's latest request), which is not in the log yet when a run's
// context is frozen: memory uses it to pick what is relevant.
func WithRequest(ctx context.Context, text string) context.Context {
	return context.WithValue(ctx, requestKey{}, text)
}

// Request is the latest request's text ("" when none was given).
func Request(ctx context.Context) string {
	s, _ := ctx.Value(requestKey{}).(string)
	return s
}
