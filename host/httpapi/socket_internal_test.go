package httpapi

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/test/testkit"
)

// TestTheLocalChannelMeetsTheServersTimeouts: a process that stops half-way
// through its body on the local channel is answered and cut at the read
// timeout, as on the TCP server. The socket once built its own server with
// none of the TCP server's limits, so such a client held a connection and a
// goroutine of the owner for as long as it liked.
func TestTheLocalChannelMeetsTheServersTimeouts(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "quire.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(Backend{}, slog.New(slog.DiscardHandler))
	s.limits.read = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.serveSocket(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveSocket: %v", err)
		}
	})

	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(testkit.Patience))
	StopsMidBody(t, conn, "quire", ProtocolHeader+": "+protocol.Version+"\r\n")
}
