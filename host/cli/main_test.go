package cli

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/test/crashtest"
	"quire/test/mcptest"
)

// The test binary doubles as the stdio MCP test server (the one `quire mcp`
// starts in its tests, and the one of the eval scenarios whose servers say
// transport: stdio) and as a Quire that asks its -ask program and is then
// killed (askParentEnv).
func TestMain(m *testing.M) {
	mcptest.ServeIfChild()
	crashtest.Main(m, askParentEnv, askParent)
}

// askParentEnv makes the test binary a Quire asking the -ask program its
// value names, and waiting for the answer until it is killed.
const askParentEnv = "QUIRE_TEST_ASK_PARENT"

func askParent(program string) {
	q := protocol.Question{Session: "s", Calls: []protocol.QuestionCall{{ID: "c1", Name: "create_note"}}}
	a := askProgram(context.Background(), program, q, time.Hour)
	fmt.Fprintf(os.Stderr, "the -ask program answered before the kill: %+v\n", a)
	os.Exit(1)
}
