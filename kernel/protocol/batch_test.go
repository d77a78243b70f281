package protocol

import "testing"

// The folder a batch names, as the queue and the hosts compare it: an
// absolute path keeps its slash (so the notes tools refuse it), never
// turning into the folder of that name inside the notes folder.
func TestBatchFolder(t *testing.T) {
	for in, want := range map[string]string{
		"inbox": "inbox", "inbox/": "inbox", " inbox// ": "inbox", "a/b/": "a/b",
		"": ".", "  ": ".", ".": ".",
		"/inbox": "/inbox", "/": "/", "///": "///", "/tmp/": "/tmp",
	} {
		if got := BatchFolder(in); got != want {
			t.Errorf("BatchFolder(%q) = %q, want %q", in, got, want)
		}
	}
}
