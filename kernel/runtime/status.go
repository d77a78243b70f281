package runtime

import (
	"slices"

	"quire/kernel/core"
)

// Three statuses, kept apart (seed 001 §5): whether a session is attached to
// an owner, what its run is doing, and how the runtime as a whole is.

// SessionStatus says whether a session has an owner goroutine.
type SessionStatus string

const (
	SessionAttached SessionStatus = "attached"
	SessionDetached SessionStatus = "detached"
)

// RunStatus is what a session's run is doing.
type RunStatus string

const (
	RunIdle      RunStatus = "idle"
	RunStreaming RunStatus = "streaming"
	RunAwaiting  RunStatus = "awaiting-permission"
	RunExecuting RunStatus = "executing-tools"
	RunClosing   RunStatus = "closing"
)

func runStatus(m core.Model) RunStatus {
	return [...]RunStatus{RunIdle, RunStreaming, RunAwaiting, RunExecuting, RunClosing}[m.Phase]
}

// RuntimeStatus is the runtime as a whole.
type RuntimeStatus struct {
	Closing  bool `json:"closing"`
	Attached int  `json:"attached"` // sessions with an owner
	Streams  int  `json:"streams"`  // model streams in flight
}

// Status reports the runtime's status.
func (r *Runtime) Status() RuntimeStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RuntimeStatus{Closing: r.closing, Attached: len(r.sessions), Streams: len(r.pool)}
}

// Quiescent reports whether a session has nothing in flight: no run, or a
// run waiting for the user with no tool still running (seed 003).
func (r *Runtime) Quiescent(id string) bool {
	r.mu.Lock()
	s, ok := r.sessions[id]
	r.mu.Unlock()
	if !ok {
		return true
	}
	m := s.model()
	switch m.Phase {
	case core.Idle:
		return true
	case core.AwaitingPermission:
		for _, c := range m.Run.Calls {
			if !slices.Contains(m.Run.Done, c.ID) && !slices.Contains(m.Run.Asking, c.ID) {
				return false
			}
		}
		return true
	}
	return false
}
