package tool

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestToolImportsOnlyTheStandardLibrary keeps the promise of the package
// doc: kernel/core imports this package, so anything it imports becomes a
// dependency of the core. What needs a third-party library goes in a
// sub-package the core does not import (kernel/tool/registry).
func TestToolImportsOnlyTheStandardLibrary(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.Split(path, "/")[0], ".") || strings.HasPrefix(path, "quire/") {
				t.Errorf("%s imports %s: kernel/tool is standard library only", name, path)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}
