package runtime

// WithWaitsTurn calls f with the ID of each call of a tool that may not run
// in parallel when it finds another call holding its turn and waits: the
// event a test of the turn-taking waits on.
func WithWaitsTurn(f func(callID string)) Option { return func(r *Runtime) { r.waitsTurn = f } }
