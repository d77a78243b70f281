package app

import (
	"sync"

	"quire/host"
	"quire/mcpclient"
)

// mcpParts is the MCP servers' manager: an Owner's is opened with the
// runtime and its tools offered to the chats (never to the task queue's
// workers, which only read and propose); a Reader's (`quire mcp list`) is
// opened by the first MCP call. Either is closed in Close.
type mcpParts struct {
	once sync.Once
	m    *mcpclient.Manager
}

// openMCP opens the manager over the data folder's mcp.json; the enabled
// servers start in the background. opts are Extras.MCP (attached servers).
func (p *Parts) openMCP(opts []mcpclient.Option) *mcpclient.Manager {
	p.mcp.once.Do(func() {
		p.mcp.m = mcpclient.New(p.settings.Get().DataDir, p.settings, p.log.With("part", "mcp"), opts...)
	})
	return p.mcp.m
}

// MCP is the MCP servers' back end.
func (p *Parts) MCP() host.MCP { return p.openMCP(nil) }

// closeMCP stops every server, killing each stdio child's process group.
func (p *Parts) closeMCP() {
	p.mcp.once.Do(func() {}) // none opened after Close
	if p.mcp.m != nil {
		p.mcp.m.Close()
	}
}
