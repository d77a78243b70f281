package docs

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// ruleSince is when CONTRIBUTING.md's commit rule was written (Unix time,
// committer date): commits before it are history and are left as they are.
const ruleSince = 1796568900

// TestCommitSubjectsAreShort holds the commits made since the rule to a
// subject of at most 72 characters, so `git log --oneline` reads. A shallow
// clone checks what it has.
func TestCommitSubjectsAreShort(t *testing.T) {
	out, err := exec.Command("git", "-C", root, "log", "--format=%ct%x09%h%x09%s").Output()
	if err != nil {
		t.Fatalf("git log: %v (the docs tests run in a git checkout)", err)
	}
	checked := 0
	for line := range strings.Lines(string(out)) {
		parts := strings.SplitN(strings.TrimRight(line, "\n"), "\t", 3)
		if len(parts) != 3 {
			continue
		}
		when, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil || when < ruleSince {
			continue
		}
		checked++
		if n := utf8.RuneCountInString(parts[2]); n > 72 {
			t.Errorf("commit %s: its subject is %d characters (at most 72, CONTRIBUTING.md): %q", parts[1], n, parts[2])
		}
	}
	if checked == 0 {
		t.Fatal("no commit since the rule was found: is this the repository?")
	}
}

// TestArchitectureIsAMap keeps docs/ARCHITECTURE.md readable in ten minutes
// (issue 28): at most 2,500 words, no line (so no table row) over 400
// characters. The long account of each room lives in DECISIONS.md.
func TestArchitectureIsAMap(t *testing.T) {
	text := read(t, "docs/ARCHITECTURE.md")
	if words := len(strings.Fields(text)); words > 2500 {
		t.Errorf("ARCHITECTURE.md has %d words: at most 2,500; move the detail to DECISIONS.md", words)
	}
	for n, line := range strings.Split(text, "\n") {
		if c := utf8.RuneCountInString(line); c > 400 {
			t.Errorf("ARCHITECTURE.md line %d is %d characters: at most 400", n+1, c)
		}
	}
}
