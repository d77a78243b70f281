package assembly

import (
	"sync"

	"quire/host"
	"quire/kernel/compact"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/kernel/tool"
	"quire/mcpclient"
)

// mcpParts is the MCP servers' client: an Owner's is opened with the
// runtime and its tools offered to the chats (never to the task queue's
// workers, which only read and propose); a Reader's (`quire mcp list`) is
// opened by the first MCP call, read-only: it starts no server and takes
// no change. Either is closed in Close.
type mcpParts struct {
	once sync.Once
	m    *mcpclient.Client
}

// openMCP opens the client over the data folder's mcp.json; the enabled
// servers start in the background. opts are Extras.MCP (attached servers).
func (p *Parts) openMCP(opts []mcpclient.Option) *mcpclient.Client {
	p.mcp.once.Do(func() {
		// The declarations are counted as the runtime counts them.
		tokens := mcpclient.WithTokens(func(s tool.Spec) int {
			return compact.ToolTokens(provider.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
		})
		opts = append([]mcpclient.Option{tokens}, opts...)
		if p.mode == Reader {
			// A Reader runs nothing and writes nothing (ReadOnly).
			opts = append(opts, mcpclient.ReadOnly())
		}
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

// CheckMCP and ParseMCP are the MCP client's own checks of a server's
// config and of a pasted mcp.json, for the window: it shows the user what
// would run and asks before handing them to Put or Import, which check
// again (a host never imports the client itself).
func CheckMCP(c protocol.MCPServerConfig) error { return mcpclient.Check(c) }

// ParseMCP is mcpclient.Parse of text.
func ParseMCP(text string) ([]protocol.MCPServerConfig, []protocol.MCPImportIssue, error) {
	return mcpclient.Parse([]byte(text))
}
