// Package compact decides when and how a session's history is made
// shorter (seed 002 decisions 4-7, seed 000 §3, seed 001 §7), and does it by
// history.replace events only: nothing is deleted, the originals stay in
// the log, and the UI can expand them.
//
// It owns token accounting (an estimate per message, calibrated per model
// from what Ollama reported as prompt_eval_count, against the window from
// num_ctx and the model's trained context length), the pollution figures
// (fill, the largest share from one tool, the duplicate ratio, the share in
// long tool logs), the decision (pure: Measure, Decide, Spans — table
// tested), and four strategies: drop low-value logs (a stub says what was
// dropped), extract structured facts into working memory, summarise a
// range with a model call of its own, and cut one message to its head and
// tail (no model: the last resort for a message too long for the window).
//
// Invariants it keeps: the system zone is never touched (it is not part of
// the history); the latest user request is never inside a replaced range
// and summaries say where it is; the recent tail is kept verbatim, except
// a single message too long for the window (Oversize), which would leave
// the chat unusable; a replace that does not make the estimated request
// smaller is discarded. On an overflow the request counts as over the
// window whatever the estimate says, so a compaction always makes progress.
//
// It imports only kernel/event, kernel/history and kernel/provider. It must
// never import the runtime, the store, a database driver, a model client,
// memory/, rag/, tools/ or hosts: working memory and the model's window
// arrive as the small interfaces below.
package compact
