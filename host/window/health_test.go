package window

import (
	"context"
	"sync/atomic"
	"testing"

	"quire/doctor"
	"quire/host"
)

// TestTheWindowIsToldWhenHealthChanges: with a watcher, "Check again"
// (Doctor) that finds Ollama started is sent to the page as quire:health,
// as the watcher's own checks are, so the first screen follows.
func TestTheWindowIsToldWhenHealthChanges(t *testing.T) {
	a, _, got := newTestApp(t, "")
	var up atomic.Bool
	report := func(context.Context) doctor.Report {
		return doctor.Report{OK: up.Load(), Checks: []doctor.Check{{Name: "Ollama", OK: up.Load()}}}
	}
	a.health = host.NewHealth(report, report)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a.startup(ctx)
	health := func(ok bool) func([]emitted) bool {
		return func(es []emitted) bool {
			n := len(es) - 1
			return n >= 0 && es[n].name == eventHealth && es[n].data[0].(doctor.Report).OK == ok
		}
	}
	if r := a.Doctor(); r.OK {
		t.Fatalf("Doctor with Ollama down: %+v", r)
	}
	got.wait(t, "the report with Ollama down", health(false))
	up.Store(true)
	if r := a.Doctor(); !r.OK {
		t.Fatalf("Doctor with Ollama up: %+v", r)
	}
	got.wait(t, "the report with Ollama up", health(true))
}
