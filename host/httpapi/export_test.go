package httpapi

import "time"

// SetStreamWriteTimeout changes the per-write deadline of s's event streams,
// so a test can choose which bound a stalled client meets first.
func SetStreamWriteTimeout(s *Server, d time.Duration) { s.streamWrite = d }

// StreamClosed is the log message of a stream the server ended.
const StreamClosed = streamClosed
