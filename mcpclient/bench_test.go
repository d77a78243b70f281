package mcpclient_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/config"
	"quire/kernel/protocol"
	"quire/mcpclient"
	"quire/test/mcptest"
)

// BenchmarkToolsAtRunStart is what a run's start pays for the MCP tools:
// Tools (the runtime's ToolProvider) over servers at their bound (16 of
// 64 tools, each with a small object schema), the user's choices applied.
func BenchmarkToolsAtRunStart(b *testing.B) {
	dir := b.TempDir()
	var opts []mcpclient.Option
	for i := range protocol.MCPMaxServers {
		opts = append(opts, mcpclient.WithServer(protocol.MCPServerConfig{Name: fmt.Sprintf("s%02d", i), Enabled: true}, manyTools(protocol.MCPMaxToolsPerServer)))
	}
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler), opts...)
	defer m.Close()
	for i := range protocol.MCPMaxServers {
		mcptest.WaitState(b, m, fmt.Sprintf("s%02d", i), protocol.MCPRunning)
	}
	if n := len(m.Tools()); n != protocol.MCPMaxServers*protocol.MCPMaxToolsPerServer {
		b.Fatalf("%d tools offered", n)
	}
	b.ResetTimer()
	for range b.N {
		m.Tools()
	}
}

func manyTools(n int) mcpclient.Connect {
	return func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		s := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1"}, nil)
		schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "the text"}}, "required": []any{"text"}}
		for i := range n {
			s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: "A tool that does one thing with a text.", InputSchema: schema,
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: i%2 == 0}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		if _, err := s.Connect(ctx, server, nil); err != nil {
			return nil, err
		}
		return client, nil
	}
}
