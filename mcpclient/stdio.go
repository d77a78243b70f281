package mcpclient

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/internal/childgroup"
)

// stdioChild is a stdio server's transport: the SDK's, but its command is
// started through childgroup, so the server and whatever it starts (an
// npx wrapper's node, a shell's children) are one process group that a
// stop kills whole, that a Ctrl+C in Quire's terminal does not reach, and
// that dies with Quire even when Quire is killed outright.
type stdioChild struct {
	mcp.CommandTransport
	group atomic.Pointer[childgroup.Group] // once started
}

// Connect starts the server as the SDK's transport does, in its group.
func (c *stdioChild) Connect(ctx context.Context) (mcp.Connection, error) {
	var conn mcp.Connection
	g, err := childgroup.Start(c.Command, func() (err error) {
		conn, err = c.CommandTransport.Connect(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.group.Store(g)
	return conn, nil
}

// kill kills the server's whole group, if it was started (c may be nil:
// a server over HTTP or attached in process has no child).
func (c *stdioChild) kill() {
	if c == nil {
		return
	}
	if g := c.group.Load(); g != nil {
		g.Kill()
	}
}

// pid is the server's process id, 0 before it started.
func (c *stdioChild) pid() int {
	if c == nil || c.Command.Process == nil {
		return 0
	}
	return c.Command.Process.Pid
}
