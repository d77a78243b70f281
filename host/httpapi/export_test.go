package httpapi

import (
	"net"
	"net/http"
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
