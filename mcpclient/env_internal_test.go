package mcpclient

import (
	"slices"
	"testing"
)

// A stdio server does not inherit what only the window's web process
// should see.
func TestAStdioServerDoesNotInheritTheWindowsJITSwitch(t *testing.T) {
	got := childEnviron([]string{"HOME=/h", "JSC_useJIT=0", "PATH=/bin", "JSC_useJITX=1"})
	want := []string{"HOME=/h", "PATH=/bin", "JSC_useJITX=1"}
	if !slices.Equal(got, want) {
		t.Fatalf("childEnviron = %q, want %q", got, want)
	}
}
