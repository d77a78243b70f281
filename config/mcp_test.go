package config

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
)

// The MCP tool choices: one per server and tool (a new one replaces it,
// the default removes it), saved in settings.json beside what the file
// holds, bounded; Update may not change them, and a resolve reads them
// back with the call deadline's default.
func TestMCPToolChoicesAreSavedOnePerTool(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSettings(dir, Config{Model: "kept-model"}); err != nil {
		t.Fatal(err)
	}
	s := NewStore(Config{DataDir: dir})
	steps := []struct {
		set  MCPToolSetting
		want []MCPToolSetting
		err  bool
	}{
		{MCPToolSetting{Server: "fs", Tool: "write", Effects: "read"}, []MCPToolSetting{{Server: "fs", Tool: "write", Effects: "read"}}, false},
		{MCPToolSetting{Server: "fs", Tool: "read", Disabled: true}, []MCPToolSetting{{Server: "fs", Tool: "write", Effects: "read"}, {Server: "fs", Tool: "read", Disabled: true}}, false},
		{MCPToolSetting{Server: "fs", Tool: "write", Effects: "write+net"}, []MCPToolSetting{{Server: "fs", Tool: "read", Disabled: true}, {Server: "fs", Tool: "write", Effects: "write+net"}}, false},
		{MCPToolSetting{Server: "fs", Tool: "read"}, []MCPToolSetting{{Server: "fs", Tool: "write", Effects: "write+net"}}, false},
		{MCPToolSetting{Server: strings.Repeat("s", MaxModelName+1), Tool: "x", Disabled: true}, []MCPToolSetting{{Server: "fs", Tool: "write", Effects: "write+net"}}, true},
	}
	for i, st := range steps {
		err := s.SetMCPTool(st.set)
		var fe *FieldError
		if st.err != (err != nil) || (err != nil && !errors.As(err, &fe)) {
			t.Fatalf("step %d: err %v, want error %v as a FieldError", i, err, st.err)
		}
		if got := s.MCP().Tools; !slices.Equal(got, st.want) {
			t.Errorf("step %d: in use %+v, want %+v", i, got, st.want)
		}
		saved, err := ReadSettings(dir)
		if err != nil || !slices.Equal(saved.MCP.Tools, st.want) || saved.Model != "kept-model" {
			t.Errorf("step %d: saved %+v (model %q, %v)", i, saved.MCP.Tools, saved.Model, err)
		}
	}
	if err := s.Update(func(c *Config) error { c.MCP.Tools = nil; return nil }); !errors.Is(err, ErrNotUpdated) {
		t.Errorf("Update changed the MCP choices: %v", err)
	}
	c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if c.MCP.CallTimeoutSeconds != DefaultMCPCallSeconds || len(c.MCP.Tools) != 1 {
		t.Errorf("resolved %+v", c.MCP)
	}
}
