package mcpclient_test

import (
	"context"
	"testing"

	"quire/kernel/protocol"
	"quire/mcpclient"
	"quire/test/mcptest"
)

// Watch is registered before it returns: a change made the moment after
// is delivered, never lost to a watcher still being set up. `quire mcp
// list` without an owner relies on it (it reads the list once the watch
// began, then waits on the watch for the starts to settle). Each case
// makes its change straight after Watch returns; run with -count=20
// -race to shake the order.
func TestWatchSeesAChangeMadeRightAfterItReturns(t *testing.T) {
	tests := []struct {
		name   string
		change func(*mcpclient.Client) error
		want   string
	}{
		{"a stop", func(m *mcpclient.Client) error { _, err := m.Stop(context.Background(), "garden"); return err }, protocol.MCPStopped},
		{"a restart", func(m *mcpclient.Client) error { _, err := m.Restart(context.Background(), "garden"); return err }, protocol.MCPStarting},
		{"a choice", func(m *mcpclient.Client) error {
			_, err := m.SetTool(context.Background(), protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Echo, Enabled: false})
			return err
		}, protocol.MCPRunning},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := open(t, mcpclient.WithServer(protocol.MCPServerConfig{Name: "garden", Enabled: true},
				mcptest.InMemory(mcptest.Options{RecordFile: t.TempDir() + "/record"})))
			mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
			ctx, cancel := context.WithTimeout(t.Context(), mcptest.Patience)
			defer cancel()
			changes := m.Watch(ctx)
			if err := tc.change(m); err != nil {
				t.Fatal(err)
			}
			for s := range changes {
				if s.Config.Name == "garden" && s.State == tc.want {
					return
				}
			}
			t.Fatalf("the change right after Watch returned was not delivered within %s", mcptest.Patience)
		})
	}
}
