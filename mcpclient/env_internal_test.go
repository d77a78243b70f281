package mcpclient

import (
	"slices"
	"testing"
)

// A stdio server starts with what a program needs from Quire's
// environment, never the rest of it: not a token in the user's shell, not
// the window's JIT switch.
func TestAStdioServerInheritsOnlyWhatAProgramNeeds(t *testing.T) {
	got := childEnviron([]string{"HOME=/h", "JSC_useJIT=0", "PATH=/bin", "OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=g", "LANG=C.UTF-8", "PATHX=1"})
	want := []string{"HOME=/h", "PATH=/bin", "LANG=C.UTF-8"}
	if !slices.Equal(got, want) {
		t.Fatalf("childEnviron = %q, want %q", got, want)
	}
}
