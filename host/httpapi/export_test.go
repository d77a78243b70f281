package httpapi

import (
	"net"
	"net/http"
	"time"
)

// SetLimits shortens the server's read and write timeouts and tells
// connState of every connection's state, so a test can wait on a timeout
// having cut a connection instead of waiting a minute.
func SetLimits(s *Server, read, write time.Duration, connState func(net.Conn, http.ConnState)) {
	s.limits.read, s.limits.write, s.limits.connState = read, write, connState
}
