package mcpclient_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"quire/mcpclient"
	"quire/test/crashtest"
	"quire/test/mcptest"
)

// Quire killed outright (SIGKILL) while a stdio server runs that started a
// helper of its own and would outlive its stdin waiting on it: the server
// and its helper go with Quire.
func TestStdioServerDiesWithQuire(t *testing.T) {
	dir := t.TempDir()
	fifo := crashtest.Fifo(t)
	cfg := mcptest.Stdio(t, "garden", filepath.Join(dir, "record.txt"))
	cfg.Env[mcptest.PidsEnv] = fifo
	file := map[string]any{"mcpServers": map[string]any{cfg.Name: map[string]any{"command": cfg.Command, "args": cfg.Args, "env": cfg.Env}}}
	b, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, mcpclient.File), b, 0o600); err != nil {
		t.Fatal(err)
	}
	quire := crashtest.New(t, quireEnv, 1).Start(dir)
	procs := crashtest.Watch(t, quire.Pids(fifo)...)
	if line, ok := quire.Line(); !ok || line != "running" {
		t.Fatalf("Quire said %q (%v); its stderr: %s", line, ok, quire.Stderr())
	}
	if !quire.Kill() {
		t.Fatalf("Quire ended before the kill; its stderr: %s", quire.Stderr())
	}
	procs.WaitGone()
}
