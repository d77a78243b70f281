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

type toolsKey struct{}

// WithTools tells dynamic fragments the JSON Schema of the parameters of
// each tool the run offers (by name), as the run froze them when it opened:
// a fragment that speaks of tools (the skills list, whose load_skill tool
// takes an enum of names) then says the same at every step of the run, even
// when a setting changes mid-run.
func WithTools(ctx context.Context, params map[string]map[string]any) context.Context {
	return context.WithValue(ctx, toolsKey{}, params)
}

// OfferedTools is what WithTools gave (nil outside a run's assembly). The maps are
// the run's: read them, never change them.
func OfferedTools(ctx context.Context) map[string]map[string]any {
	m, _ := ctx.Value(toolsKey{}).(map[string]map[string]any)
	return m
}

type runKey struct{}

// WithRun tells dynamic fragments the run the assembly is for: the run
// being opened, or the run whose step refreshes its context. A fragment
// whose text must hold for a whole run (the active evolution fragments)
// resolves it once per run by this id.
func WithRun(ctx context.Context, run string) context.Context {
	return context.WithValue(ctx, runKey{}, run)
}

// Run is the run WithRun gave ("" outside a run's assembly).
func Run(ctx context.Context) string {
	s, _ := ctx.Value(runKey{}).(string)
	return s
}
