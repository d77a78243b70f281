package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages runs `go list -deps` over the module's own packages.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []listedPackage
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

func isStd(path string) bool {
	return !strings.Contains(strings.Split(path, "/")[0], ".") && !under(path, "quire")
}

// composes reports whether a package picks concrete parts: the composition
// root, and the test kit that assembles the same kernel for tests.
func composes(pkg string) bool { return pkg == "quire" || under(pkg, "quire/internal/testkit") }

const (
	wailsModule  = "github.com/wailsapp/wails"
	sqliteModule = "modernc.org/sqlite"
	ollamaModule = "github.com/ollama/ollama"
)

// TestLayering enforces the import rules of docs/ARCHITECTURE.md on the
// transitive dependencies `go list -deps` reports.
func TestLayering(t *testing.T) {
	type rule struct {
		name      string
		applies   func(pkg string) bool
		forbidden func(dep string) bool
	}
	rules := []rule{
		{"kernel never depends on Wails, memory, rag, tools or hosts",
			func(p string) bool { return under(p, "quire/kernel") },
			func(d string) bool {
				return under(d, wailsModule) || under(d, "quire/memory") || under(d, "quire/rag") || under(d, "quire/tools") || under(d, "quire/host")
			}},
		{"only kernel/store depends on the SQL driver",
			func(p string) bool { return !under(p, "quire/kernel/store") && !composes(p) },
			func(d string) bool { return under(d, sqliteModule) }},
		{"only the Ollama adapter depends on the Ollama client",
			// eval runs scenarios against the fake Ollama server (and records
			// what a real one is sent), so it sees the client's types.
			func(p string) bool {
				return !under(p, "quire/kernel/provider/ollama") && !composes(p) && !under(p, "quire/eval") &&
					!under(p, "quire/internal/ollamatest")
			},
			func(d string) bool { return under(d, ollamaModule) }},
		{"the fake Ollama server is test and eval equipment: no product package depends on it",
			// `quire eval` reaches it through eval, which plays scenarios against it.
			func(p string) bool {
				return !under(p, "quire/internal/ollamatest") && !under(p, "quire/eval") && !composes(p) && !under(p, "quire/host/cli")
			},
			func(d string) bool { return under(d, "quire/internal/ollamatest") }},
		{"kernel/core depends only on the standard library, kernel/event and kernel/tool",
			func(p string) bool { return under(p, "quire/kernel/core") },
			func(d string) bool {
				return !isStd(d) && !under(d, "quire/kernel/event") && !under(d, "quire/kernel/tool")
			}},
		{"kernel/compact depends only on the standard library, kernel/event, kernel/history and kernel/provider",
			func(p string) bool { return under(p, "quire/kernel/compact") },
			func(d string) bool {
				return !isStd(d) && !under(d, "quire/kernel/event") && !under(d, "quire/kernel/history") && d != "quire/kernel/provider"
			}},
		{"eval gets its kernel from the composition root: no Wails, host, concrete tool, RAG or SQL driver",
			func(p string) bool { return under(p, "quire/eval") },
			func(d string) bool {
				return under(d, wailsModule) || under(d, "quire/host") || under(d, "quire/tools") || under(d, "quire/rag") ||
					under(d, "quire/kernel/store") || under(d, sqliteModule)
			}},
		{"memory reaches the kernel only through its facets and ports, never a host or Wails",
			func(p string) bool { return under(p, "quire/memory") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/host") || under(d, "quire/tools") || under(d, wailsModule)
			}},
		{"hosts speak the protocol, not the store, the core or the adapter",
			func(p string) bool { return under(p, "quire/host") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/provider") || under(d, "quire/kernel/core") ||
					under(d, sqliteModule) || under(d, ollamaModule)
			}},
		{"hosts reach documents through their own interface, not rag or the library",
			func(p string) bool { return under(p, "quire/host") },
			func(d string) bool { return under(d, "quire/rag") || under(d, "quire/library") }},
		{"the library never depends on Wails, hosts or the kernel runtime",
			func(p string) bool { return under(p, "quire/library") },
			func(d string) bool {
				return under(d, wailsModule) || under(d, "quire/host") || under(d, "quire/kernel/runtime")
			}},
	}
	pkgs := listPackages(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			for _, p := range pkgs {
				if !r.applies(p.ImportPath) {
					continue
				}
				for _, d := range p.Deps {
					if r.forbidden(d) {
						t.Errorf("%s depends on %s", p.ImportPath, d)
					}
				}
			}
		})
	}
}

// TestCoreIsPure keeps I/O, the clock and randomness out of kernel/core:
// none of its packages may import them directly (fmt reaching os does not
// count), and its code may not read the clock.
func TestCoreIsPure(t *testing.T) {
	impure := []string{"os", "os/exec", "net", "net/http", "io/ioutil", "math/rand", "math/rand/v2", "crypto/rand", "database/sql", "syscall", "log", "log/slog"}
	found := false
	for _, p := range listPackages(t) {
		if !under(p.ImportPath, "quire/kernel/core") {
			continue
		}
		found = true
		for _, imp := range p.Imports {
			if slices.Contains(impure, imp) {
				t.Errorf("%s imports %s", p.ImportPath, imp)
			}
		}
	}
	if !found {
		t.Fatal("no kernel/core package found")
	}
	files, _ := filepath.Glob("kernel/core/*.go")
	clock := regexp.MustCompile(`\btime\.(Now|Since|Until|After|AfterFunc|Sleep|Tick|NewTimer|NewTicker)\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := clock.Find(src); m != nil {
			t.Errorf("%s reads the clock: %s", f, m)
		}
	}
}

// TestLayeringRulesSeeTheRealGraph makes sure the forbidden parts really are
// in the graph where they are allowed, so a rule cannot pass by matching nothing.
func TestLayeringRulesSeeTheRealGraph(t *testing.T) {
	deps := map[string][]string{}
	for _, p := range listPackages(t) {
		deps[p.ImportPath] = p.Deps
	}
	has := func(pkg, dep string) bool {
		for _, d := range deps[pkg] {
			if under(d, dep) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct{ pkg, dep string }{
		{"quire/kernel/store", sqliteModule},
		{"quire/kernel/provider/ollama", ollamaModule},
		{"quire", wailsModule},
		{"quire/library", "quire/rag"},
		{"quire/kernel/runtime", "quire/kernel/compact"},
		{"quire/eval", ollamaModule},
		{"quire/eval", "quire/internal/ollamatest"},
		{"quire", "quire/memory"},
		{"quire/memory", "quire/kernel/event"},
	} {
		if !has(c.pkg, c.dep) {
			t.Errorf("%s does not depend on %s: the layering test would pass vacuously", c.pkg, c.dep)
		}
	}
}
