package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/test/testkit"
)

// listen runs s as quire serve does (ListenAndServe) until the test ends
// and returns its address and secret.
func listen(t *testing.T, s *httpapi.Server) (addr, secret string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx, "127.0.0.1:0", func(link string) { ready <- link }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	})
	select {
	case link := <-ready:
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		if u.Path != "/" || len(u.Query().Get(httpapi.TokenQuery)) != 43 {
			t.Fatalf("the printed link %q does not carry a 32-byte secret", link)
		}
		return u.Host, u.Query().Get(httpapi.TokenQuery)
	case err := <-done:
		t.Fatalf("ListenAndServe: %v", err)
	}
	return "", ""
}

// dial opens a raw connection whose reads give up after testkit.Patience.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetReadDeadline(time.Now().Add(testkit.Patience))
	return conn
}

// TestASlowBodyIsCutAndAStreamIsNot: a client that stops half-way through
// its body is answered and cut when the read timeout passes, while an
// event stream opened before it still delivers afterwards, past both the
// read and the write timeout (a server-wide WriteTimeout, or the
// ordinary routes' write deadline, would have ended it). Today's server
// had no read timeout: the slow client held its connection for as long as
// it liked.
func TestASlowBodyIsCutAndAStreamIsNot(t *testing.T) {
	k := testkit.New(t)
	s := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{}, slog.New(slog.DiscardHandler))
	const read = 300 * time.Millisecond
	httpapi.SetLimits(s, read, 2*read, nil)
	addr, secret := listen(t, s)
	auth := "Authorization: Bearer " + secret + "\r\nQuire-Protocol: 1.0\r\n"

	stream := dial(t, addr)
	fmt.Fprintf(stream, "GET /api/stream HTTP/1.1\r\nHost: %s\r\n%s\r\n", addr, auth)
	events := bufio.NewReader(stream)
	for {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream: %v", err)
		}
		if strings.HasPrefix(line, ": connected") {
			break
		}
	}

	// Two slow clients, one after the other: each is cut after the read
	// timeout, so together they outlast the write timeout (twice as long).
	for range 2 {
		httpapi.StopsMidBody(t, dial(t, addr), addr, auth)
	}

	// The stream's read and write timeouts have passed by now (it began
	// before the slow clients): it must still carry what happens next.
	client := &http.Client{}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", "http://"+addr+"/api/sessions", strings.NewReader(`{"title":"after"}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set(httpapi.ProtocolHeader, "1.0")
	req.Header.Set("Content-Type", "application/json")
	if r, err := client.Do(req); err != nil || r.StatusCode != 200 {
		t.Fatalf("create a session: %v %v", r, err)
	}
	for {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended at a timeout: %v", err)
		}
		if strings.Contains(line, `"session.created"`) {
			return
		}
	}
}

// TestAReaderThatStopsIsCut: a client that asks for a large answer and
// never reads it is cut when the write timeout passes, so it cannot hold
// a goroutine and its buffers for ever. Today's server had no write
// timeout: the connection stayed open.
func TestAReaderThatStopsIsCut(t *testing.T) {
	big := strings.Repeat("x", 32<<20) // far more than the sockets' buffers
	s := httpapi.New(httpapi.Backend{}, fstest.MapFS{"big.txt": {Data: []byte(big)}}, slog.New(slog.DiscardHandler))
	closed := make(chan struct{}, 1)
	httpapi.SetLimits(s, time.Minute, 300*time.Millisecond, func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	})
	addr, _ := listen(t, s)
	conn := dial(t, addr)
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetReadBuffer(4096)
	}
	fmt.Fprintf(conn, "GET /big.txt HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	// The server closing the connection is the proof: without a write
	// deadline its handler would stay blocked in the write for ever.
	select {
	case <-closed:
	case <-time.After(testkit.Patience):
		t.Fatalf("a client that never read still holds its connection after %s", testkit.Patience)
	}
}
