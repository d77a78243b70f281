package queue

import "quire/kernel/tool"

// ToolSource offers tools, as the runtime's ToolProvider does.
type ToolSource interface {
	Tools() []tool.Tool
}

// ToolsFunc is a ToolSource from a function.
type ToolsFunc func() []tool.Tool

func (f ToolsFunc) Tools() []tool.Tool { return f() }

// Workers' tools: what the sources offer that only reads, and propose. It
// is the ToolProvider of the workers' kernel, so a tool that may write (a
// note, memory, the network) is not in their registry at all: a worker's
// call to one is refused as a tool it does not have, whatever its profile.
type workerTools struct {
	q       *Queue
	sources []ToolSource
}

// WorkerTools is the workers' tool set over sources (the note tools, the
// documents' search): the ones whose effects are within reading, and
// propose.
func (q *Queue) WorkerTools(sources ...ToolSource) ToolSource {
	return workerTools{q: q, sources: sources}
}

func (w workerTools) Tools() []tool.Tool {
	out := []tool.Tool{w.q.Propose()}
	for _, s := range w.sources {
		out = append(out, ReadOnly(s.Tools())...)
	}
	return out
}

// ReadOnly keeps the tools whose effects are within reading (or none).
func ReadOnly(ts []tool.Tool) []tool.Tool {
	var out []tool.Tool
	for _, t := range ts {
		if t.Spec().Effects&^tool.ReadFs == 0 {
			out = append(out, t)
		}
	}
	return out
}
