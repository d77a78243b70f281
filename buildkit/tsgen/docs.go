package tsgen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// docs reads doc comments of types and fields from Go source, one package
// directory at a time, on first use.
type docs struct {
	root, module string
	pkgs         map[string]map[string]*ast.TypeSpec // import path -> type name -> spec
	decl         map[*ast.TypeSpec]*ast.GenDecl
}

func newDocs(root, module string) *docs {
	return &docs{root: root, module: module, pkgs: map[string]map[string]*ast.TypeSpec{}, decl: map[*ast.TypeSpec]*ast.GenDecl{}}
}

func (d *docs) spec(t reflect.Type) *ast.TypeSpec {
	if d == nil || t.Name() == "" {
		return nil
	}
	path := t.PkgPath()
	types, ok := d.pkgs[path]
	if !ok {
		types = d.load(path)
		d.pkgs[path] = types
	}
	return types[t.Name()]
}

func (d *docs) load(path string) map[string]*ast.TypeSpec {
	out := map[string]*ast.TypeSpec{}
	rel, ok := strings.CutPrefix(path, d.module)
	if !ok || (rel != "" && rel[0] != '/') {
		return out
	}
	dir := filepath.Join(d.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				out[ts.Name.Name] = ts
				d.decl[ts] = gd
			}
		}
	}
	return out
}

// typeDoc is the doc comment of a named type: its own, or that of its
// declaration when it is declared alone.
func (d *docs) typeDoc(t reflect.Type) string {
	ts := d.spec(t)
	if ts == nil {
		return ""
	}
	if ts.Doc != nil {
		return ts.Doc.Text()
	}
	if gd := d.decl[ts]; gd != nil && len(gd.Specs) == 1 && gd.Doc != nil {
		return gd.Doc.Text()
	}
	return ""
}

// fieldDoc is a struct field's doc comment, or its line comment.
func (d *docs) fieldDoc(t reflect.Type, goName string) string {
	ts := d.spec(t)
	if ts == nil {
		return ""
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return ""
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name != goName {
				continue
			}
			var parts []string
			if f.Doc != nil {
				parts = append(parts, strings.TrimSpace(f.Doc.Text()))
			}
			if f.Comment != nil {
				parts = append(parts, strings.TrimSpace(f.Comment.Text()))
			}
			return strings.Join(parts, "\n")
		}
	}
	return ""
}

// method is an interface method's doc comment and its parameters' names
// as the source writes them ("" where it names none).
func (d *docs) method(t reflect.Type, name string) (doc string, params []string) {
	ts := d.spec(t)
	if ts == nil {
		return "", nil
	}
	it, ok := ts.Type.(*ast.InterfaceType)
	if !ok {
		return "", nil
	}
	return d.methodIn(t.PkgPath(), it, name)
}

// methodIn finds the method in it or, through its embedded interfaces of
// the same package, in the interface that declares it.
func (d *docs) methodIn(pkg string, it *ast.InterfaceType, name string) (doc string, params []string) {
	for _, m := range it.Methods.List {
		if id, ok := m.Type.(*ast.Ident); ok && len(m.Names) == 0 {
			spec := d.pkgs[pkg][id.Name]
			if spec == nil {
				continue
			}
			if sub, ok := spec.Type.(*ast.InterfaceType); ok {
				if doc, params := d.methodIn(pkg, sub, name); params != nil || doc != "" {
					return doc, params
				}
			}
			continue
		}
		if len(m.Names) != 1 || m.Names[0].Name != name {
			continue
		}
		if m.Doc != nil {
			doc = m.Doc.Text()
		}
		ft, ok := m.Type.(*ast.FuncType)
		if !ok {
			return doc, nil
		}
		for _, p := range ft.Params.List {
			if len(p.Names) == 0 {
				params = append(params, "")
			}
			for _, n := range p.Names {
				params = append(params, n.Name)
			}
		}
		return doc, params
	}
	return "", nil
}
