package mcpclient

import (
	"strings"
	"testing"
)

// Tool names become what Ollama and the registry take (^[a-zA-Z0-9_-]{1,64}$),
// namespaced by server, and two long names stay apart.
func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := []struct{ server, tool, want string }{
		{"fs", "read_file", "fs__read_file"},
		{"web", "fetch.page", "web__fetch_page"},
		{"w", "é/ü", "w____"},
		{"srv", long, "srv__" + long[:64-len("srv__")-9] + "-"},
	}
	for _, c := range cases {
		got := toolName(c.server, c.tool)
		if !strings.HasPrefix(got, c.want) || len(got) > 64 {
			t.Errorf("toolName(%q, %q) = %q, want %q…", c.server, c.tool, got, c.want)
		}
	}
	if a, b := toolName("srv", long+"a"), toolName("srv", long+"b"); a == b {
		t.Errorf("two long names cut to the same %q", a)
	}
}
