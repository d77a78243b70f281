package runtime

import (
	"context"

	"quire/kernel/tool"
)

// The facets through which capabilities plug into the runtime. Each is small
// and consumed here; memory/, rag/ and tools/ implement them.

// ToolProvider offers tools. Tools are frozen into the capability snapshot
// when a run starts.
type ToolProvider interface {
	Tools() []tool.Tool
}

// ToolSettler is a ToolProvider whose tools come from sources that start
// on their own (an MCP server's process and handshake). Settle waits
// until every source answered or failed, or ctx ends, and says which were
// still starting when it was called (waited) and which still are
// (starting: their tools are not offered to the run). The runtime calls it
// before it freezes a run's tools, bounded by SettleWait, and records both
// in the run's capability snapshot.
type ToolSettler interface {
	Settle(ctx context.Context) (waited, starting []string)
}

// ContextContributor adds a fragment to the system text the model sees. It
// is evaluated when a run starts and the text is frozen into the run's
// capability snapshot, so it is in the log.
type ContextContributor interface {
	Name() string
	Contribute(ctx context.Context, session string) (string, error)
}

// LifecycleSubscriber hears about runs that finished.
type LifecycleSubscriber interface {
	RunFinished(ctx context.Context, session, runID, reason string)
}

// RunTrigger may start work on its own, through submit (for example a
// reminder). It is started with the runtime and stopped with it.
type RunTrigger interface {
	Start(ctx context.Context, submit func(ctx context.Context, session, text string, intent string) error)
}

// CheckpointHook runs just before a run closes, after the hooks before it;
// the texts it returns extend the run as one more step (seed 000 §6).
type CheckpointHook func(ctx context.Context, session, runID string) ([]string, error)

// Asker asks the user about calls that need permission and returns the
// answer. It may block until the user answers; the runtime calls it in its
// own goroutine and a deadline in the capability snapshot bounds the wait.
type Asker func(ctx context.Context, q Question) (Answer, error)

// Question is what the user is asked: several calls at once get one question.
type Question struct {
	Session string
	RunID   string
	Calls   []tool.Call
	// Descriptions say, call by call, what each would do (tool.Describe):
	// for an edit a compact diff, for a move from -> to.
	Descriptions []string
}

// Answer is the user's answer to a Question.
type Answer struct {
	Allowed  bool
	Feedback string
}
