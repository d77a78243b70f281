package mcpclient_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"quire/config"
	"quire/kernel/protocol"
	"quire/mcpclient"
	"quire/test/mcptest"
)

// quireEnv makes the test binary a Quire running the servers of the data
// folder its value names, until it is killed.
const quireEnv = "QUIRE_TEST_MCP_PARENT"

func quireWithServers(dir string) {
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), mcptest.Patience)
	defer cancel()
	if _, err := mcptest.Wait(ctx, m, "garden", protocol.MCPRunning); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("running")
	held := make(chan os.Signal, 1)
	signal.Notify(held, syscall.SIGTERM)
	<-held // until the test's SIGKILL
}
