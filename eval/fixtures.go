package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"quire/kernel/tool"
)

// fixtures are the test tools a scenario may add (setup.tools). They stand
// for tools Quire does not have yet, to stage what a real tool may do: take
// a while, or never come back.
var fixtures = map[string]func(release <-chan struct{}) tool.Tool{
	"sleep": func(<-chan struct{}) tool.Tool { return sleepTool{} },
	"hang":  func(release <-chan struct{}) tool.Tool { return hangTool{release: release} },
}

// Fixtures is the tool provider of a scenario's fixture tools. Release lets
// hung tools go when the scenario ends, so no goroutine outlives it.
type Fixtures struct {
	tools   []tool.Tool
	release chan struct{}
	once    sync.Once
}

func newFixtures(names []string) *Fixtures {
	f := &Fixtures{release: make(chan struct{})}
	for _, n := range names {
		f.tools = append(f.tools, fixtures[n](f.release))
	}
	return f
}

// Tools is the runtime's ToolProvider facet.
func (f *Fixtures) Tools() []tool.Tool { return f.tools }

// Release ends every hung call.
func (f *Fixtures) Release() { f.once.Do(func() { close(f.release) }) }

// sleepTool waits, and stops when cancelled, as a well-behaved slow tool.
type sleepTool struct{}

func (sleepTool) Spec() tool.Spec {
	return tool.Spec{Name: "sleep", Description: "Wait ms milliseconds (a test tool).",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"ms": map[string]any{"type": "integer", "minimum": 0, "maximum": 10000}},
			"required": []string{"ms"}, "additionalProperties": false},
		Effects: tool.ReadFs, Idempotency: tool.Unsafe, Timeout: 5 * time.Second}
}

func (sleepTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a struct{ Ms int }
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tool.Result{}, err
	}
	t := time.NewTimer(time.Duration(a.Ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return tool.Result{Status: tool.Success, Content: fmt.Sprintf("Waited %d ms.", a.Ms)}, nil
	case <-ctx.Done():
		return tool.Result{Status: tool.Cancelled, Content: "Stopped waiting."}, nil
	}
}

// hangTool ignores its context and never returns until the scenario ends:
// the runtime's deadline must stop waiting for it.
type hangTool struct{ release <-chan struct{} }

func (hangTool) Spec() tool.Spec {
	return tool.Spec{Name: "hang", Description: "Look something up (a test tool that never answers).",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
		Effects:    tool.ReadFs, Idempotency: tool.Unsafe, Timeout: 300 * time.Millisecond}
}

func (h hangTool) Run(context.Context, tool.Call) (tool.Result, error) {
	<-h.release
	return tool.Result{Status: tool.Success, Content: "too late"}, nil
}
