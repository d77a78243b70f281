package cli

import (
	"testing"

	"quire/internal/mcptest"
)

// The test binary doubles as the stdio MCP test server: the one `quire mcp`
// starts in its tests, and the one of the eval scenarios whose servers say
// transport: stdio.
func TestMain(m *testing.M) { mcptest.Main(m) }
