package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCoreImportsOnlyTheKernelVocabulary keeps the promise of the package
// doc: the loop imports only the standard library, kernel/event and
// kernel/tool, does no I/O and reads no clock: times arrive in messages.
func TestCoreImportsOnlyTheKernelVocabulary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"quire/kernel/event": true, "quire/kernel/tool": true}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			std := !strings.Contains(strings.Split(path, "/")[0], ".") && !strings.HasPrefix(path, "quire/")
			if !std && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
			if path == "math/rand" || path == "math/rand/v2" || path == "os" || path == "net" || path == "net/http" {
				t.Errorf("%s imports %s: the loop draws no random number and does no I/O", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" {
				switch sel.Sel.Name {
				case "Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker":
					t.Errorf("%s calls time.%s: the loop reads no clock", name, sel.Sel.Name)
				}
			}
			return true
		})
		checked++
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}
