package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// This file uses only what main has had since before streams were bounded,
// so the same benchmark measures the code before and after (docs/BENCHMARKS-NOTEBOOK.md).

const (
	stalledClients = 20
	fillSessions   = 40  // each update then carries ~9 KB of sessions list
	renames        = 400 // ~3.6 MB of updates for each client
)

// stalledClient opens /api/stream over TCP with a small receive buffer,
// reads the response head and the first comment (so the server watches for
// it), and then reads nothing more until the test says so.
type stalledClient struct {
	conn net.Conn
	resp *http.Response
}

func openStalled(t testing.TB, h *httpapi.Server, addr string) stalledClient {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	conn, err := d.DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/stream?protocol="+protocol.Version, nil)
	req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
	req.Header.Set("Authorization", "Bearer "+secretOf(t, h))
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(testkit.Patience))
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 64), req)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, len(": connected\n\n"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != ": connected\n\n" {
		t.Fatalf("stream opened with %q, %v", first, err)
	}
	return stalledClient{conn: conn, resp: resp}
}

// rest reads the stream to its end (bounded by Patience) and returns what
// came and how it ended.
func (c stalledClient) rest() (string, error) {
	c.conn.SetReadDeadline(time.Now().Add(testkit.Patience))
	b, err := io.ReadAll(c.resp.Body)
	return string(b), err
}

// fill creates sessions whose list makes every later update some KB: the
// sessions list rides on each update of a rename.
func fill(t testing.TB, k *testkit.Kernel, sessions int) []string {
	t.Helper()
	ids := make([]string, sessions)
	for i := range ids {
		s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession,
			protocol.CreateSessionPayload{Title: fmt.Sprintf("%03d %s", i, strings.Repeat("n", 76))})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = s.ID
	}
	return ids
}

func rename(t testing.TB, k *testkit.Kernel, id string, i int) {
	t.Helper()
	if _, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.RenameSession,
		protocol.RenameSessionPayload{Session: id, Title: fmt.Sprintf("%04d %s", i, strings.Repeat("r", 75))}); err != nil {
		t.Fatal(err)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// rss is the process's resident memory, in bytes (Linux), or 0.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkStalledStreams measures the memory twenty /api/stream clients
// that never read make `quire serve` hold during a long stream: the live Go
// heap above what it was before the clients came, at its highest (sampled
// every 50 updates) and at the end, and the process's resident memory at
// the end. Default bounds and socket buffers, as `quire serve` runs.
// Run it once: go test -run '^$' -bench StalledStreams -benchtime 1x ./host/httpapi/
func BenchmarkStalledStreams(b *testing.B) {
	const updates = 2000 // with 40 sessions listed, ~18 MB of updates for each client
	for b.Loop() {
		b.StopTimer()
		k := testkit.New(b)
		h := httpapi.New(httpapi.Backend{Kernel: k.Runtime,
			Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
			fstest.MapFS{}, slog.New(slog.DiscardHandler))
		srv := httptest.NewServer(h)
		ids := fill(b, k, fillSessions)
		heap0 := heapInUse()
		clients := make([]stalledClient, stalledClients)
		for i := range clients {
			clients[i] = openStalled(b, h, srv.Listener.Addr().String())
		}
		above := func() float64 { return float64(int64(heapInUse())-int64(heap0)) / (1 << 20) }
		peak := 0.0
		b.StartTimer()
		for i := range updates {
			rename(b, k, ids[i%len(ids)], i)
			if i%50 == 49 {
				b.StopTimer()
				peak = max(peak, above())
				b.StartTimer()
			}
		}
		b.StopTimer()
		b.ReportMetric(peak, "peak-heap-MB")
		b.ReportMetric(above(), "end-heap-MB")
		b.ReportMetric(float64(rss())/(1<<20), "rss-MB")
		for _, c := range clients {
			c.conn.Close()
		}
		srv.Close()
		k.Close(b)
		b.StartTimer()
	}
}
