package httpapi

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// SetStreamWriteTimeout changes the per-write deadline of s's event streams,
// so a test can choose which bound a stalled client meets first.
func SetStreamWriteTimeout(s *Server, d time.Duration) { s.streamWrite = d }

// StreamClosed is the log message of a stream the server ended.
const StreamClosed = streamClosed

// SetLimits shortens the server's read and write timeouts and tells
// connState of every connection's state, so a test can wait on a timeout
// having cut a connection instead of waiting a minute.
func SetLimits(s *Server, read, write time.Duration, connState func(net.Conn, http.ConnState)) {
	s.limits.read, s.limits.write, s.limits.connState = read, write, connState
}

// StopsMidBody sends, on conn, a request whose body stops after 4 of its
// 100 bytes (headers are the lines after Host, each ending in \r\n), and
// fails the test unless the server answers it 400 once its read timeout
// cuts the body off. conn's own read deadline bounds the wait.
func StopsMidBody(t testing.TB, conn net.Conn, host, headers string) {
	t.Helper()
	fmt.Fprintf(conn, "POST /api/sessions HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"ti", host, headers)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("a client that stopped sending its body got no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("the slow client: %d, want 400", resp.StatusCode)
	}
}
