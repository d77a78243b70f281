package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/config"
	"quire/internal/mcptest"
	"quire/kernel/protocol"
)

// addArgs is `quire mcp add NAME -- …` for mcptest's stdio server.
func addArgs(t *testing.T, dir, name string) []string {
	srv := mcptest.Stdio(t, name, filepath.Join(t.TempDir(), "record"))
	return append([]string{"mcp", "-data-dir", dir, "-env", mcptest.Env + "=" + srv.Env[mcptest.Env], "add", name, "--", srv.Command}, srv.Args...)
}

// With no Quire running, `quire mcp add` saves the server (as the folder's
// owner for the moment), `quire mcp list` starts the enabled servers to
// say how each is — running with its tools and their effects, or failed
// with why and its stderr; a Streamable HTTP one added with -url too —
// and says it did so; -json is the same list as
// protocol.MCPList; `remove` forgets a server.
func TestMCPCommandsWithoutOwner(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	web := mcptest.HTTP(t, filepath.Join(t.TempDir(), "web-record"))
	for _, args := range [][]string{
		addArgs(t, dir, "garden"),
		{"mcp", "-data-dir", dir, "add", "broken", "--", filepath.Join(dir, "no-such-server")},
		{"mcp", "-data-dir", dir, "-url", web.URL, "add", "web"},
	} {
		out.Reset()
		if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "Added "+args[slices.Index(args, "add")+1]) {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"mcp", "-data-dir", dir, "list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"garden  running (pid ",
		"  5 tools, ",
		"  garden__echo                             reads only, ",
		"  garden__record                           can change things, asks first, ",
		"broken  failed",
		"web  running (mcptest 1.0.0, MCP ",
		"  web__record                              can change things, asks first, ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the list lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(errb.String(), "No Quire is running on this data folder") {
		t.Errorf("stderr does not say the servers were started for the list: %s", errb.String())
	}

	out.Reset()
	if code := run([]string{"mcp", "-data-dir", dir, "-json", "list"}, &out, &errb); code != 0 {
		t.Fatalf("list -json: exit %d: %s", code, errb.String())
	}
	var list protocol.MCPList
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("list -json is not an MCPList: %v\n%s", err, out.String())
	}
	states := map[string]string{}
	for _, s := range list.Servers {
		states[s.Config.Name] = s.State
		if s.State == protocol.MCPFailed && s.Reason == "" {
			t.Errorf("%s failed without a reason", s.Config.Name)
		}
	}
	if states["garden"] != protocol.MCPRunning || states["web"] != protocol.MCPRunning || states["broken"] != protocol.MCPFailed || list.Tokens <= 0 {
		t.Errorf("list -json: %v, %d tokens", states, list.Tokens)
	}

	out.Reset()
	if code := run([]string{"mcp", "-data-dir", dir, "remove", "broken"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Removed broken") {
		t.Fatalf("remove: exit %d: %s %s", code, out.String(), errb.String())
	}
	if code := run([]string{"mcp", "-data-dir", dir, "remove", "broken"}, &out, &errb); code != 1 {
		t.Errorf("removing a server that is not configured: exit %d, want 1", code)
	}
	out.Reset()
	run([]string{"mcp", "-data-dir", dir, "list"}, &out, &errb)
	if strings.Contains(out.String(), "broken") || !strings.Contains(out.String(), "garden  running") {
		t.Errorf("after remove:\n%s", out.String())
	}
}

// While `quire serve` owns the folder, `quire mcp` lists the servers as
// that owner runs them, and adds there, saying so.
func TestMCPCommandsThroughTheRunningOwner(t *testing.T) {
	dir := t.TempDir()
	settings := config.NewStore(config.Config{DataDir: dir, Model: "qwen3:4b", NumCtx: 8192})
	p := servingOwner(t, settings)

	var out, errb bytes.Buffer
	if code := run(addArgs(t, dir, "garden"), &out, &errb); code != 0 || !strings.Contains(errb.String(), "This data folder is owned by `quire serve` (process") {
		t.Fatalf("add through the owner: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	mcptest.WaitState(t, p.MCP(), "garden", protocol.MCPRunning)
	out.Reset()
	errb.Reset()
	if code := run([]string{"mcp", "-data-dir", dir, "list"}, &out, &errb); code != 0 {
		t.Fatalf("list through the owner: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "garden  running") || !strings.Contains(errb.String(), "As `quire serve` (process") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp.json")); err != nil {
		t.Errorf("the owner did not save the server: %v", err)
	}
}

func TestMCPUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mcp"},
		{"mcp", "frob"},
		{"mcp", "list", "extra"},
		{"mcp", "add", "x"},
		{"mcp", "-url", "http://127.0.0.1:1/mcp", "add", "x", "--", "cmd"},
		{"mcp", "-url", "http://127.0.0.1:1/mcp", "-env", "A=B", "add", "x"},
		{"mcp", "remove"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{args[0], "-data-dir", dir}, args[1:]...), &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: quire mcp list") {
			t.Errorf("%v: exit %d, %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"mcp", "-data-dir", dir, "-env", "NOEQUALS", "add", "x", "--", "cmd"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "is not KEY=VALUE") {
		t.Errorf("a bad -env: exit %d, %q", code, errb.String())
	}
}
