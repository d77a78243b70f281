package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/protocol"
	"quire/test/mcptest"
)

// addArgs is `quire mcp add NAME -- …` for mcptest's stdio server.
func addArgs(t *testing.T, dir, name string) []string {
	srv := mcptest.Stdio(t, name, filepath.Join(t.TempDir(), "record"))
	return append([]string{"mcp", "-data-dir", dir, "-env", mcptest.Env + "=" + srv.Env[mcptest.Env], "add", name, "--", srv.Command}, srv.Args...)
}

// folderState is every file under dir with its mode and contents.
func folderState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		b := []byte{}
		if d.Type().IsRegular() {
			if b, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		out[filepath.Base(p)] = fmt.Sprintf("%v %x", st.Mode(), sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// With no Quire running, `quire mcp add` saves the server (as the folder's
// owner for the moment), and `quire mcp list` only reads: it lists the
// servers as configured — a stdio one, one whose program is missing, a
// Streamable HTTP one added with -url — starts none of them (a server
// that would leave a mark leaves none), writes nothing in the data
// folder, and says so; -json is the same list as protocol.MCPList;
// `remove` forgets a server.
func TestMCPCommandsWithoutOwner(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	web := mcptest.HTTP(t, filepath.Join(t.TempDir(), "web-record"))
	mark := filepath.Join(t.TempDir(), "started")
	for _, args := range [][]string{
		addArgs(t, dir, "garden"),
		{"mcp", "-data-dir", dir, "add", "broken", "--", filepath.Join(dir, "no-such-server")},
		{"mcp", "-data-dir", dir, "-url", web.URL, "add", "web"},
		{"mcp", "-data-dir", dir, "add", "marker", "--", "/bin/sh", "-c", "touch " + mark},
	} {
		out.Reset()
		if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "Added "+args[slices.Index(args, "add")+1]) {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
		}
	}
	// `quire mcp add` took the folder as its owner for the moment, which
	// starts the enabled servers: the mark is made there, not by the list.
	if err := os.Remove(mark); err != nil {
		t.Fatalf("the owner of the add did not start the marker server: %v", err)
	}
	out.Reset()
	errb.Reset()
	before := folderState(t, dir)
	if code := run([]string{"mcp", "-data-dir", dir, "list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	text := out.String()
	for _, want := range []string{"garden  stopped", "broken  stopped", "web  stopped", "marker  stopped", "Not started: this look at the servers only reads."} {
		if !strings.Contains(text, want) {
			t.Errorf("the list lacks %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only list started a server (it left %s: %v)", mark, err)
	}
	after := folderState(t, dir)
	for name := range maps.Keys(after) {
		// SQLite's read-only open of a WAL database makes its WAL index
		// where the folder takes files (kernel/store OpenReadOnly); the
		// database and every file of Quire's are left as they were.
		if name == "quire.db-shm" || name == "quire.db-wal" {
			continue
		}
		if before[name] != after[name] {
			t.Errorf("a read-only list changed %s in the data folder: %q, was %q", name, after[name], before[name])
		}
	}
	for name := range maps.Keys(before) {
		if _, ok := after[name]; !ok {
			t.Errorf("a read-only list removed %s from the data folder", name)
		}
	}
	if !strings.Contains(errb.String(), "No Quire is running on this data folder: the servers as configured, none started") {
		t.Errorf("stderr does not say the servers were not started: %s", errb.String())
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
	if states["garden"] != protocol.MCPStopped || states["web"] != protocol.MCPStopped || states["broken"] != protocol.MCPStopped || list.Tokens != 0 {
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
	if strings.Contains(out.String(), "broken") || !strings.Contains(out.String(), "garden  stopped") {
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
