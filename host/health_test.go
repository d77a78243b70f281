package host_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/doctor"
	"quire/host"
)

// clock hands the watcher's waits to the test, which ends each one itself.
type clock struct{ waits chan pause }

type pause struct {
	d    time.Duration
	fire chan time.Time
}

func (c *clock) after(d time.Duration) <-chan time.Time {
	p := pause{d: d, fire: make(chan time.Time, 1)}
	c.waits <- p
	return p.fire
}

// next is the watcher's next wait, which must last d.
func (c *clock) next(t *testing.T, d time.Duration) pause {
	t.Helper()
	select {
	case p := <-c.waits:
		if p.d != d {
			t.Fatalf("the watcher waits %v, want %v", p.d, d)
		}
		return p
	case <-t.Context().Done():
		t.Fatal("the watcher never waited")
	}
	return pause{}
}

// ollama is the quick checks' answer: up or not, switched by the test.
type ollama struct {
	mu   sync.Mutex
	up   bool
	full atomic.Int32 // whole reports made
}

func (o *ollama) set(up bool) { o.mu.Lock(); o.up = up; o.mu.Unlock() }

func (o *ollama) quick(context.Context) doctor.Report {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := doctor.Check{Name: "Ollama", OK: o.up, Detail: "version 0.17.4"}
	if !o.up {
		c.Detail, c.Action = "not reachable: connection refused", doctor.ActionInstall
	}
	return doctor.Report{OK: o.up, Checks: []doctor.Check{c}}
}

func (o *ollama) whole(ctx context.Context) doctor.Report {
	o.full.Add(1)
	r := o.quick(ctx)
	r.Checks = append(r.Checks, doctor.Check{Name: "SQLite", OK: true})
	return r
}

func receive(t *testing.T, ch <-chan doctor.Report, ok bool) doctor.Report {
	t.Helper()
	select {
	case r := <-ch:
		if r.OK != ok {
			t.Fatalf("report OK = %v, want %v: %+v", r.OK, ok, r)
		}
		return r
	case <-t.Context().Done():
		t.Fatalf("no report (want OK = %v)", ok)
	}
	return doctor.Report{}
}

func start(t *testing.T, o *ollama) (*host.Health, *clock) {
	c := &clock{waits: make(chan pause)}
	h := host.NewHealth(o.quick, o.whole, host.WithClock(c.after), host.WithBackoff(time.Second, 30*time.Second))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); h.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return h, c
}

// TestHealthNoticesOllamaOnItsOwn: while Ollama is missing the watcher
// asks again after 1, 2, 4 … seconds up to 30; when it appears every
// watcher is sent the new report without being asked, and a healthy
// Ollama is asked again every 30 s, so its going away is noticed too.
func TestHealthNoticesOllamaOnItsOwn(t *testing.T) {
	o := &ollama{}
	h, c := start(t, o)
	reports := h.Watch(t.Context())
	receive(t, reports, false)
	// The state changes only while the watcher waits.
	var p pause
	for _, d := range []time.Duration{1, 2, 4, 8, 16, 30} {
		c.next(t, d*time.Second).fire <- time.Time{}
	}
	p = c.next(t, 30*time.Second)
	o.set(true)
	p.fire <- time.Time{}
	r := receive(t, reports, true)
	if len(r.Checks) != 2 {
		t.Fatalf("the watcher sent the quick report, not the whole one: %+v", r)
	}
	c.next(t, 30*time.Second).fire <- time.Time{}
	p = c.next(t, 30*time.Second)
	o.set(false)
	p.fire <- time.Time{}
	receive(t, reports, false)
	c.next(t, time.Second)
	if n := o.full.Load(); n != 3 {
		t.Fatalf("%d whole reports were made, want 3 (one per change)", n)
	}
	select {
	case r := <-reports:
		t.Fatalf("a report that changed nothing was sent: %+v", r)
	default:
	}
}

// TestRecheckEndsTheWait: "Check again" checks at once, whatever the wait,
// and the back-off starts again from its first step.
func TestRecheckEndsTheWait(t *testing.T) {
	o := &ollama{}
	h, c := start(t, o)
	reports := h.Watch(t.Context())
	receive(t, reports, false)
	c.next(t, time.Second).fire <- time.Time{}
	c.next(t, 2*time.Second).fire <- time.Time{}
	c.next(t, 4*time.Second) // never fired
	o.set(true)
	r := h.Check(t.Context())
	if !r.OK {
		t.Fatalf("Check made %+v", r)
	}
	receive(t, reports, true)
	c.next(t, 30*time.Second) // the quick check again, at once, then the healthy pace
	if got, ok := h.Report(); !ok || !got.OK {
		t.Fatalf("Report = %+v, %v", got, ok)
	}
}

// TestASlowWatcherGetsTheNewest: reports a watcher did not take are
// replaced by the newest, and a new watcher is given the latest first.
func TestASlowWatcherGetsTheNewest(t *testing.T) {
	o := &ollama{}
	h := host.NewHealth(o.quick, o.whole)
	slow := h.Watch(t.Context())
	h.Check(t.Context())
	o.set(true)
	h.Check(t.Context())
	o.set(false)
	h.Check(t.Context())
	o.set(true)
	h.Check(t.Context())
	receive(t, slow, true)
	select {
	case r := <-slow:
		t.Fatalf("a stale report followed the newest: %+v", r)
	default:
	}
	receive(t, h.Watch(t.Context()), true)
}

// TestAReportOfAnEndedRequestIsNotPublished: a page's request that ended
// during the whole report (a tab closed or reloaded during the database
// check) made its report with a context that was stopped; what it says
// (a check cut short) is not offered to every other page (issue 31 item 1:
// every open tab said "the database file is damaged").
func TestAReportOfAnEndedRequestIsNotPublished(t *testing.T) {
	o := &ollama{up: true}
	whole := func(ctx context.Context) doctor.Report {
		r := o.whole(ctx)
		if ctx.Err() != nil {
			r.OK = false
			r.Checks = append(r.Checks, doctor.Check{Name: "Database", Detail: "the database file is damaged (context canceled)"})
		}
		return r
	}
	h := host.NewHealth(o.quick, whole)
	first := h.Check(t.Context())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	h.Check(ctx)
	got, ok := h.Report()
	if !ok || !got.OK || len(got.Checks) != len(first.Checks) {
		t.Fatalf("the report of an ended request was published: %+v", got)
	}
	reports := h.Watch(t.Context())
	if r := receive(t, reports, true); len(r.Checks) != len(first.Checks) {
		t.Fatalf("a new page is shown the report of an ended request: %+v", r)
	}
}
