package host

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// mostMethods is how many methods a port of this package may declare of
// its own: a reader keeps a port in their head, and a consumer that needs
// less asks for a smaller port (Evolution is Candidates, CandidateSteps
// and Evaluations). Batches and MCP are at the bound.
const mostMethods = 9

// TestPortsFitInAHead: no interface this package declares has more than
// mostMethods methods of its own (embedded ports do not count).
func TestPortsFitInAHead(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			iface, ok := spec.Type.(*ast.InterfaceType)
			if !ok {
				return true
			}
			seen++
			own := 0
			for _, m := range iface.Methods.List {
				own += len(m.Names) // an embedded port has none
			}
			if own > mostMethods {
				t.Errorf("%s declares %d methods, at most %d: split it by what its consumers need", spec.Name.Name, own, mostMethods)
			}
			return false
		})
	}
	if seen < 10 {
		t.Fatalf("found %d ports; the test reads the wrong files", seen)
	}
}
