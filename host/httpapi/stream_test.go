package httpapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/event"
	kruntime "quire/kernel/runtime"
	"quire/test/testkit"
)

// closures collects the server's "event stream closed" log records, so a
// test waits for the server to have cut its clients (never on a timer).
type closures struct{ records chan slog.Record }

func (c closures) Enabled(context.Context, slog.Level) bool { return true }
func (c closures) Handle(_ context.Context, r slog.Record) error {
	if r.Message == httpapi.StreamClosed {
		c.records <- r
	}
	return nil
}
func (c closures) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c closures) WithGroup(string) slog.Handler      { return c }

// reason is the "reason" attribute of a closed-stream record.
func reason(r slog.Record) string {
	var out string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "reason" {
			out = a.Value.String()
		}
		return true
	})
	return out
}

// smallBuffers makes each accepted connection's send buffer small, so a
// client that stops reading blocks the server's writes after a few KB
// rather than after the megabytes the kernel would let it queue.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

type streamEnv struct {
	k    *testkit.Kernel
	srv  *httptest.Server
	h    *httpapi.Server
	logs closures
}

// serveStreams runs the HTTP host over the real kernel with a stream queue
// bound and per-write deadline chosen by the test, on a real TCP listener.
func serveStreams(t testing.TB, bound event.Bound, writeTimeout time.Duration) streamEnv {
	t.Helper()
	k := testkit.New(t, kruntime.WithQueueBound(bound))
	logs := closures{records: make(chan slog.Record, 1000)}
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{}, slog.New(logs))
	httpapi.SetStreamWriteTimeout(h, writeTimeout)
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	return streamEnv{k: k, srv: srv, h: h, logs: logs}
}

// closed waits until the server has logged n closed streams, each for why.
func (e streamEnv) closed(t testing.TB, n int, why string) {
	t.Helper()
	for i := range n {
		select {
		case r := <-e.logs.records:
			if reason(r) != why {
				t.Fatalf("a stream closed for %q, want %q", reason(r), why)
			}
		case <-time.After(testkit.Patience):
			t.Fatalf("the server closed %d of %d streams for %q", i, n, why)
		}
	}
}

// Twenty clients that never read hold no more than their bounds while the
// stream goes on, and each is ended with a "lagging" event, which it reads
// once it reads again; nothing they missed is lost from the log.
func TestStalledStreamsStayBoundedAndEndWithTheReason(t *testing.T) {
	const bound = 64 << 10
	e := serveStreams(t, event.Bound{Bytes: bound}, testkit.Patience)
	ids := fill(t, e.k, fillSessions)
	before := heapInUse()
	clients := make([]stalledClient, stalledClients)
	for i := range clients {
		clients[i] = openStalled(t, e.h, e.srv.Listener.Addr().String())
	}
	for i := range renames {
		rename(t, e.k, ids[i%len(ids)], i)
	}
	held := int64(heapInUse()) - int64(before)
	// Unbounded, each client would hold every update: some 4 MB each, 80 MB
	// in all. Bounded, each holds its bound and a batch: about 3 MB in all.
	const limit = 16 << 20
	t.Logf("%d stalled clients hold %.1f MB of heap after %d updates", stalledClients, float64(held)/(1<<20), renames)
	if held > limit {
		t.Errorf("%d clients that never read hold %.1f MB of heap after %d updates; want under %d MB",
			stalledClients, float64(held)/(1<<20), renames, limit>>20)
	}
	for i, c := range clients {
		got, err := c.rest()
		if err != nil {
			t.Fatalf("client %d: the stream did not end cleanly: %v", i, err)
		}
		if !strings.HasSuffix(got, "event: lagging\ndata: {\"error\":\"Quire's live updates fell behind this page and were restarted; the page reloads what it missed.\"}\n\n") {
			tail := got[max(0, len(got)-200):]
			t.Fatalf("client %d: the stream ended without the lagging event; it ended with %q", i, tail)
		}
	}
	e.closed(t, stalledClients, "lagging")
	// What the clients missed is in the log, to reload from.
	if n := len(e.k.Log(t, ids[0])); n != 1+renames/fillSessions {
		t.Fatalf("the first session's log has %d events, want %d", n, 1+renames/fillSessions)
	}
}

// A client that stops reading is cut off when a write passes its deadline,
// even while it is within its queue's bound.
func TestAStalledStreamIsCutAtItsWriteDeadline(t *testing.T) {
	e := serveStreams(t, event.DefaultBound, 50*time.Millisecond)
	ids := fill(t, e.k, fillSessions)
	clients := make([]stalledClient, stalledClients)
	for i := range clients {
		clients[i] = openStalled(t, e.h, e.srv.Listener.Addr().String())
	}
	// ~450 KB each: far past the sockets' buffers, far inside the bound.
	for i := range 50 {
		rename(t, e.k, ids[i%len(ids)], i)
	}
	e.closed(t, stalledClients, "write failed")
	for i, c := range clients {
		got, err := c.rest()
		if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("client %d: the cut stream ended with %v after %d bytes; want the connection broken", i, err, len(got))
		}
		if strings.Contains(got, "event: lagging") {
			t.Fatalf("client %d was told it lagged; it was within its bound", i)
		}
	}
}
