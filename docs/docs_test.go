// Package docs holds no code. Its test keeps the developer documentation
// honest: DECISIONS.md is the only English account of the seed articles
// (which do not ship with the repository), so a row that names a file, a
// function or a test that is not there misleads the next reader. The test
// fails on such a row, and on any pointer out of the repository.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository, one level up from this package.
const root = ".."

var (
	// token is a `quoted` span or a bare test name.
	token = regexp.MustCompile("`([^`]+)`|\\b(Test[A-Z][A-Za-z0-9_]*)\\b")
	// pathLike is a token that names a file or folder of the repository.
	pathLike = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$`)
	fileExt  = regexp.MustCompile(`\.(go|ts|mjs|yaml|md)$`)
	ident    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)
	// joiner is what may stand between a file and the identifiers it holds:
	// "`a.go` `F`, `G`".
	joiner = regexp.MustCompile(`^[ ,]*$`)
)

func isPath(tok string) bool {
	return pathLike.MatchString(tok) && (strings.Contains(tok, "/") || fileExt.MatchString(tok))
}

// cellRef is what one table cell claims: paths, identifiers in a file, and
// tests in a file.
type cellRef struct {
	paths  []string
	idents [][2]string // {file, identifier}
	tests  [][2]string // {file ("" when none was named before it), test}
}

func parseCell(cell string) cellRef {
	var ref cellRef
	cur, adjacent, last := "", false, 0
	for _, m := range token.FindAllStringSubmatchIndex(cell, -1) {
		between := cell[last:m[0]]
		last = m[1]
		if m[4] >= 0 { // a bare test name
			ref.tests = append(ref.tests, [2]string{cur, cell[m[4]:m[5]]})
			adjacent = false
			continue
		}
		tok := cell[m[2]:m[3]]
		switch {
		case isPath(tok):
			ref.paths = append(ref.paths, tok)
			cur, adjacent = tok, strings.HasSuffix(tok, ".go")
		case adjacent && joiner.MatchString(between) && ident.MatchString(tok):
			ref.idents = append(ref.idents, [2]string{cur, tok})
		default:
			adjacent = false
		}
	}
	return ref
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testFiles maps each test function of the repository to the files that
// declare it.
func testFiles(t *testing.T) map[string][]string {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(`)
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = append(out[m[1]], filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDecisionsNameWhatExists checks every table row of DECISIONS.md: each
// path exists, each identifier right after a Go file occurs in that file,
// and each test is declared (in the test file named before it, if any).
func TestDecisionsNameWhatExists(t *testing.T) {
	text := read(t, "docs/DECISIONS.md")
	tests := testFiles(t)
	rows, refs := 0, 0
	for n, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		rows++
		for _, cell := range strings.Split(line, "|") {
			ref := parseCell(cell)
			for _, p := range ref.paths {
				refs++
				info, err := os.Stat(filepath.Join(root, p))
				switch {
				case err != nil:
					t.Errorf("line %d: %s does not exist", n+1, p)
				case strings.HasSuffix(p, "/") && !info.IsDir():
					t.Errorf("line %d: %s is not a folder", n+1, p)
				}
			}
			for _, fi := range ref.idents {
				refs++
				src, err := os.ReadFile(filepath.Join(root, fi[0]))
				if err != nil {
					continue // reported as a missing path
				}
				for _, part := range strings.Split(fi[1], ".") {
					if !regexp.MustCompile(`\b` + part + `\b`).Match(src) {
						t.Errorf("line %d: %s names %s, which it does not contain", n+1, fi[0], fi[1])
						break
					}
				}
			}
			for _, ft := range ref.tests {
				refs++
				where := tests[ft[1]]
				if len(where) == 0 {
					t.Errorf("line %d: no test is called %s", n+1, ft[1])
					continue
				}
				if strings.HasSuffix(ft[0], "_test.go") && !slices.Contains(where, ft[0]) {
					t.Errorf("line %d: %s is declared in %s, not in %s", n+1, ft[1], strings.Join(where, ", "), ft[0])
				}
			}
		}
	}
	t.Logf("%d rows, %d references", rows, refs)
	// A page that lost its tables, or a parser that stopped seeing them,
	// must not pass by checking nothing.
	if rows < 80 || refs < 300 {
		t.Fatalf("read only %d rows and %d references; the tables or the parser changed", rows, refs)
	}
}

// TestDocsPointInsideTheRepository: the developer docs must stand on their
// own in a fresh clone, so none points at a file outside it.
func TestDocsPointInsideTheRepository(t *testing.T) {
	outside := regexp.MustCompile(`\.\./[A-Za-z]`)
	for _, doc := range []string{"docs/ARCHITECTURE.md", "docs/DECISIONS.md"} {
		for n, line := range strings.Split(read(t, doc), "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d points outside the repository: %s", doc, n+1, strings.TrimSpace(line))
			}
		}
	}
}

func TestParseCell(t *testing.T) {
	cases := []struct {
		cell               string
		paths, ids, tested []string
	}{
		{"`kernel/core/core.go` `Update`, `Step` (a note `tool.refused`)", []string{"kernel/core/core.go"}, []string{"Update", "Step"}, nil},
		{"root `wire.go` `openServices`; `kernel/` x", []string{"wire.go", "kernel/"}, []string{"openServices"}, nil},
		{"`a/b_test.go` TestOne, TestTwo; `c/d.go`) , `notHere`", []string{"a/b_test.go", "c/d.go"}, nil, []string{"a/b_test.go TestOne", "a/b_test.go TestTwo"}},
		{"TestAlone and `context.WithCancelCause`", nil, nil, []string{" TestAlone"}},
		{"`evals/*.yaml`, `/events?from=`, `quire replay SESSION -request N`", nil, nil, nil},
	}
	for _, c := range cases {
		ref := parseCell(c.cell)
		var ids, tested []string
		for _, fi := range ref.idents {
			ids = append(ids, fi[1])
		}
		for _, ft := range ref.tests {
			tested = append(tested, ft[0]+" "+ft[1])
		}
		if strings.Join(ref.paths, "|") != strings.Join(c.paths, "|") || strings.Join(ids, "|") != strings.Join(c.ids, "|") ||
			strings.Join(tested, "|") != strings.Join(c.tested, "|") {
			t.Errorf("parseCell(%q) = paths %q, idents %q, tests %q; want %q, %q, %q", c.cell, ref.paths, ids, tested, c.paths, c.ids, c.tested)
		}
	}
}
