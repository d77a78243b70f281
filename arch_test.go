package main

import (
	"encoding/json"
	"maps"
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
// benchCommand reports whether a package is a benchmark command, test
// equipment that opens the store as the app does (vaultindex/cmd/editbench).
func benchCommand(pkg string) bool { return under(pkg, "quire/vaultindex/cmd") }

func composes(pkg string) bool {
	return under(pkg, "quire/assembly") || under(pkg, "quire/test/testkit")
}

// isEquipment reports whether a package is test or build equipment: the
// fake servers, the test kit and harnesses under test/, the generators and
// gates `make` runs under buildkit/. Only tests, eval and each other use it.
func isEquipment(pkg string) bool { return under(pkg, "quire/test") || under(pkg, "quire/buildkit") }

// isHost reports whether a package is a host: main (main.go + app.go, the
// window's entry), and every room under host/ (the ports of package host,
// window, httpapi, cli, probe).
func isHost(pkg string) bool { return pkg == "quire" || under(pkg, "quire/host") }

// standsOn is what a package may reach other parts through without being
// held to their dependencies: main hands the composition root's parts to
// the hosts, and `quire eval` and the root's evaluator of candidate
// improvements play scenarios through eval, which is checked on its own.
var standsOn = map[string][]string{
	"quire":          {"quire/assembly"},
	"quire/assembly": {"quire/eval"},
	"quire/host/cli": {"quire/eval"},
}

// seen is the dependencies a package answers for: its own imports and
// what they depend on, except what it reaches only through a package it
// stands on (and, for an import that stands on one, what that import
// answers for).
func seen(pkg string, pkgs map[string]listedPackage) []string {
	p := pkgs[pkg]
	skip, ok := standsOn[pkg]
	if !ok {
		return p.Deps
	}
	set := map[string]bool{}
	for _, imp := range p.Imports {
		if slices.Contains(skip, imp) {
			continue
		}
		set[imp] = true
		for _, d := range seen(imp, pkgs) {
			set[d] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

const (
	wailsModule  = "github.com/wailsapp/wails"
	sqliteModule = "modernc.org/sqlite"
	ollamaModule = "github.com/ollama/ollama"
)

// rule is one import rule of docs/ARCHITECTURE.md: no package it applies
// to may depend on a forbidden one.
type rule struct {
	name      string
	applies   func(pkg string) bool
	forbidden func(dep string) bool
}

// layeringRules are the import rules of docs/ARCHITECTURE.md.
func layeringRules() []rule {
	return []rule{
		{"kernel never depends on Wails, memory, rag, tools or hosts",
			func(p string) bool { return under(p, "quire/kernel") },
			func(d string) bool {
				return under(d, wailsModule) || under(d, "quire/memory") || under(d, "quire/rag") || under(d, "quire/tools") || under(d, "quire/host")
			}},
		{"only kernel/store depends on the SQL driver",
			func(p string) bool { return !under(p, "quire/kernel/store") && !composes(p) && !benchCommand(p) },
			func(d string) bool { return under(d, sqliteModule) }},
		{"only the Ollama adapter depends on the Ollama client",
			// eval runs scenarios against the fake Ollama server (and records
			// what a real one is sent), so it sees the client's types.
			func(p string) bool {
				return !under(p, "quire/kernel/provider/ollama") && !composes(p) && !under(p, "quire/eval") &&
					!under(p, "quire/test/ollamatest")
			},
			func(d string) bool { return under(d, ollamaModule) }},
		{"test equipment (test/) is depended on by no product package",
			// eval is checked on its own below; `quire eval` reaches the
			// fake servers only through it.
			func(p string) bool { return !isEquipment(p) && !under(p, "quire/eval") },
			func(d string) bool { return under(d, "quire/test") }},
		{"eval plays scenarios against the fake Ollama and MCP servers, and no other test equipment",
			func(p string) bool { return under(p, "quire/eval") },
			func(d string) bool {
				return under(d, "quire/test") && !under(d, "quire/test/ollamatest") && !under(d, "quire/test/mcptest")
			}},
		{"build equipment (buildkit/) is depended on by nothing but itself",
			func(p string) bool { return !under(p, "quire/buildkit") },
			func(d string) bool { return under(d, "quire/buildkit") }},
		{"internal/ holds leaves: they depend on no Quire package but each other and kernel/event",
			// kernel/event is itself a leaf: the log's vocabulary, whose
			// ErrNoSpace sqlschema classifies a full disk's write into.
			func(p string) bool { return under(p, "quire/internal") },
			func(d string) bool {
				return under(d, "quire") && !under(d, "quire/internal") && d != "quire/kernel/event"
			}},
		{"the vector engine depends only on the standard library, chromem-go and gonum",
			func(p string) bool { return under(p, "quire/internal/vecindex") },
			func(d string) bool {
				return !isStd(d) && !under(d, "github.com/philippgille/chromem-go") && !under(d, "gonum.org/v1/gonum")
			}},
		{"the data folder's lock depends only on the standard library and golang.org/x/sys",
			func(p string) bool { return under(p, "quire/internal/datadir") },
			func(d string) bool { return !isStd(d) && !under(d, "golang.org/x/sys") }},
		{"kernel/core depends only on the standard library, kernel/event and kernel/tool",
			func(p string) bool { return under(p, "quire/kernel/core") },
			func(d string) bool {
				return !isStd(d) && !under(d, "quire/kernel/event") && !under(d, "quire/kernel/tool")
			}},
		{"the OpenAI-compatible adapter depends only on the standard library and kernel/provider",
			func(p string) bool { return under(p, "quire/kernel/provider/openai") },
			func(d string) bool { return !isStd(d) && d != "quire/kernel/provider" }},
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
		{"evolve reaches the kernel only through its facets and ports: never the store, the runtime, the core, a host, tools or Wails",
			func(p string) bool { return under(p, "quire/evolve") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/host") || under(d, "quire/tools") || under(d, wailsModule) || under(d, ollamaModule)
			}},
		{"the task queue drives its workers through the protocol: never the store, the runtime, the core, a provider, a host or Wails",
			func(p string) bool { return under(p, "quire/queue") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/kernel/provider") || under(d, "quire/host") || under(d, wailsModule)
			}},
		{"standing tasks start batches through their ports: never the store, the runtime, the core, the queue, tools, a provider, a host, Wails or the SQL driver",
			func(p string) bool { return under(p, "quire/standing") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/queue") || under(d, "quire/tools") || under(d, "quire/kernel/provider") ||
					under(d, "quire/host") || under(d, wailsModule) || under(d, sqliteModule)
			}},
		{"the MCP client reaches the kernel only through its vocabulary: never the store, the runtime, the core, a provider, a host or Wails",
			func(p string) bool { return under(p, "quire/mcpclient") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/kernel/provider") || under(d, "quire/host") || under(d, wailsModule)
			}},
		{"hosts (the window included) speak the protocol, not the store, the runtime, the core or a provider",
			isHost,
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/provider") ||
					under(d, "quire/kernel/core") || under(d, sqliteModule) || under(d, ollamaModule)
			}},
		{"hosts reach documents, memory and tools through the ports of package host, never the parts",
			isHost,
			func(d string) bool {
				return under(d, "quire/rag") || under(d, "quire/library") || under(d, "quire/memory") || under(d, "quire/tools") ||
					under(d, "quire/queue") || under(d, "quire/mcpclient") || under(d, "quire/evolve") ||
					under(d, "quire/standing")
			}},
		{"only main stands on the composition root: no other package imports it",
			func(p string) bool { return p != "quire" && !under(p, "quire/assembly") },
			func(d string) bool { return under(d, "quire/assembly") }},
		{"the hostile-file generator is test and benchmark equipment: no product package depends on it",
			func(p string) bool { return !under(p, "quire/rag/parse/hostile") },
			func(d string) bool { return under(d, "quire/rag/parse/hostile") }},
		{"skills never depend on the store, the runtime, the core, a host or Wails",
			func(p string) bool { return under(p, "quire/skills") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/host") || under(d, wailsModule) || under(d, sqliteModule)
			}},
		{"the vault depends only on the standard library, goldmark and yaml.v3",
			func(p string) bool { return p == "quire/vault" },
			func(d string) bool {
				return !isStd(d) && !under(d, "github.com/yuin/goldmark") && !under(d, "gopkg.in/yaml.v3")
			}},
		{"the vault generator is test and benchmark equipment: no product package depends on it",
			func(p string) bool {
				return !under(p, "quire/vault/vaultgen") && !under(p, "quire/vault/cmd") && !under(p, "quire/vaultindex/cmd")
			},
			func(d string) bool { return under(d, "quire/vault/vaultgen") }},
		{"the folder watch depends only on the standard library, fsnotify and golang.org/x/sys (fsnotify's)",
			func(p string) bool { return under(p, "quire/watch") },
			func(d string) bool {
				return !isStd(d) && !under(d, "github.com/fsnotify/fsnotify") && !under(d, "golang.org/x/sys")
			}},
		{"the notes index never depends on the store, the runtime, the core, a provider, tools, hosts or Wails (its bench commands may)",
			func(p string) bool { return under(p, "quire/vaultindex") && !under(p, "quire/vaultindex/cmd") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/kernel/provider") || under(d, "quire/tools") || under(d, "quire/host") || under(d, wailsModule)
			}},
		{"the notes graph tools reach the index through its shapes: never the store, the runtime, a host or Wails",
			func(p string) bool { return under(p, "quire/tools/notegraph") },
			func(d string) bool {
				return under(d, "quire/kernel/store") || under(d, "quire/kernel/runtime") || under(d, "quire/kernel/core") ||
					under(d, "quire/host") || under(d, wailsModule)
			}},
		{"the library never depends on Wails, hosts or the kernel runtime",
			func(p string) bool { return under(p, "quire/library") },
			func(d string) bool {
				return under(d, wailsModule) || under(d, "quire/host") || under(d, "quire/kernel/runtime")
			}},
	}
}

// violations is what breaks rule r in the graph pkgs, one "pkg depends on
// dep" a line.
func violations(r rule, pkgs map[string]listedPackage) []string {
	var out []string
	for _, path := range slices.Sorted(maps.Keys(pkgs)) {
		if !r.applies(path) {
			continue
		}
		for _, d := range seen(path, pkgs) {
			if r.forbidden(d) {
				out = append(out, path+" depends on "+d)
			}
		}
	}
	return out
}

func graph(t *testing.T) map[string]listedPackage {
	t.Helper()
	byPath := map[string]listedPackage{}
	for _, p := range listPackages(t) {
		byPath[p.ImportPath] = p
	}
	return byPath
}

// TestLayering enforces the import rules of docs/ARCHITECTURE.md on the
// transitive dependencies `go list -deps` reports.
func TestLayering(t *testing.T) {
	byPath := graph(t)
	for _, r := range layeringRules() {
		t.Run(r.name, func(t *testing.T) {
			for _, v := range violations(r, byPath) {
				t.Error(v)
			}
		})
	}
	// The host rules see every host, the window first.
	for _, h := range []string{"quire", "quire/host", "quire/host/cli", "quire/host/httpapi", "quire/host/window"} {
		if _, ok := byPath[h]; !ok || !isHost(h) {
			t.Errorf("%s is not in the graph as a host", h)
		}
	}
}

// withImport is the graph pkgs with one more import, from → to, as
// `go list -deps` would report it.
func withImport(pkgs map[string]listedPackage, from, to string) map[string]listedPackage {
	out := maps.Clone(pkgs)
	p := out[from]
	p.Imports = append(slices.Clone(p.Imports), to)
	deps := append(slices.Clone(p.Deps), to)
	deps = append(deps, pkgs[to].Deps...)
	slices.Sort(deps)
	p.Deps = slices.Compact(deps)
	out[from] = p
	return out
}

// TestLayeringCatchesABadImport seeds one forbidden import into the real
// graph and expects the rule that forbids it to name it: a rule that
// cannot fail protects nothing.
func TestLayeringCatchesABadImport(t *testing.T) {
	rules := map[string]rule{}
	for _, r := range layeringRules() {
		rules[r.name] = r
	}
	byPath := graph(t)
	for _, c := range []struct{ rule, from, to string }{
		{"internal/ holds leaves: they depend on no Quire package but each other and kernel/event", "quire/internal/latest", "quire/kernel/runtime"},
		{"internal/ holds leaves: they depend on no Quire package but each other and kernel/event", "quire/internal/sqlschema", "quire/host"},
		{"only main stands on the composition root: no other package imports it", "quire/host/httpapi", "quire/assembly"},
		{"only main stands on the composition root: no other package imports it", "quire/internal/datadir", "quire/assembly"},
		{"test equipment (test/) is depended on by no product package", "quire/rag", "quire/test/ollamatest"},
		{"test equipment (test/) is depended on by no product package", "quire/assembly", "quire/test/testkit"},
		{"eval plays scenarios against the fake Ollama and MCP servers, and no other test equipment", "quire/eval", "quire/test/crashtest"},
		{"build equipment (buildkit/) is depended on by nothing but itself", "quire/host/cli", "quire/buildkit/tsgen"},
		{"build equipment (buildkit/) is depended on by nothing but itself", "quire/test/testkit", "quire/buildkit/contract"},
		{"hosts (the window included) speak the protocol, not the store, the runtime, the core or a provider", "quire", "quire/kernel/store"},
		{"hosts (the window included) speak the protocol, not the store, the runtime, the core or a provider", "quire/host/window", "quire/kernel/runtime"},
		{"hosts reach documents, memory and tools through the ports of package host, never the parts", "quire/host/window", "quire/mcpclient"},
		{"only main stands on the composition root: no other package imports it", "quire/host/window", "quire/assembly"},
	} {
		t.Run(c.from+" imports "+c.to, func(t *testing.T) {
			r, ok := rules[c.rule]
			if !ok {
				t.Fatalf("no rule %q", c.rule)
			}
			for _, pkg := range []string{c.from, c.to} {
				if _, ok := byPath[pkg]; !ok {
					t.Fatalf("%s is not in the graph", pkg)
				}
			}
			want := c.from + " depends on " + c.to
			if slices.Contains(violations(r, byPath), want) {
				t.Fatalf("the real graph already breaks the rule: %s", want)
			}
			if got := violations(r, withImport(byPath, c.from, c.to)); !slices.Contains(got, want) {
				t.Errorf("rule %q let %s through; it reported %q", c.rule, want, got)
			}
		})
	}
}

// TestMainIsOnlyTheWindowAndTheDispatch keeps package main to main.go (the
// dispatch) and app.go (the window's entry), and their tests, and keeps
// them short: what the window does lives in host/window, one file per
// panel, not in a file every change of every panel edits.
func TestMainIsOnlyTheWindowAndTheDispatch(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]int{"main.go": 400, "app.go": 400, "main_test.go": 0, "app_test.go": 0, "arch_test.go": 0}
	for _, f := range files {
		most, ok := allowed[f]
		if !ok {
			t.Errorf("%s is in package main; its code belongs in the composition root (assembly), a host or a domain package", f)
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); most > 0 && n > most {
			t.Errorf("%s has %d lines, at most %d: move what it does to host/window or host/cli", f, n, most)
		}
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
	pkgs := map[string]listedPackage{}
	for _, p := range listPackages(t) {
		deps[p.ImportPath] = p.Deps
		pkgs[p.ImportPath] = p
	}
	has := func(pkg, dep string) bool {
		for _, d := range deps[pkg] {
			if under(d, dep) {
				return true
			}
		}
		return false
	}
	// What a host answers for is not empty: the window reaches Wails and
	// the protocol itself, and stands on the root for the rest.
	for _, c := range []struct{ pkg, dep string }{
		{"quire", wailsModule}, {"quire", "quire/kernel/protocol"}, {"quire/host/cli", "quire/kernel/protocol"},
		{"quire/host/window", wailsModule}, {"quire/host/window", "quire/kernel/protocol"},
	} {
		if !slices.ContainsFunc(seen(c.pkg, pkgs), func(d string) bool { return under(d, c.dep) }) {
			t.Errorf("%s does not reach %s itself: the host rules would pass vacuously", c.pkg, c.dep)
		}
	}
	for _, c := range []struct{ pkg, dep string }{
		{"quire/kernel/store", sqliteModule},
		{"quire/kernel/provider/ollama", ollamaModule},
		{"quire", wailsModule},
		{"quire/library", "quire/rag"},
		{"quire/kernel/runtime", "quire/kernel/compact"},
		{"quire/eval", ollamaModule},
		{"quire/eval", "quire/test/ollamatest"},
		{"quire", "quire/assembly"},
		{"quire", "quire/kernel/store"}, // through the root: the window stands on it
		{"quire/assembly", "quire/memory"},
		{"quire/assembly", sqliteModule},
		{"quire/host/cli", "quire/eval"},
		{"quire/host/cli", ollamaModule}, // through eval only
		{"quire/memory", "quire/kernel/event"},
		{"quire/queue", "quire/kernel/protocol"},
		{"quire/queue", "quire/tools/notes"},
		{"quire/standing", "quire/internal/sqlschema"},
		{"quire/assembly", "quire/queue"},
		{"quire/rag", "quire/internal/vecindex"},
		{"quire/memory", "quire/internal/vecindex"},
		{"quire/internal/vecindex", "github.com/philippgille/chromem-go"},
		{"quire/internal/datadir", "golang.org/x/sys"},
		{"quire/vault", "github.com/yuin/goldmark"},
		{"quire/vault", "gopkg.in/yaml.v3"},
		{"quire/watch", "github.com/fsnotify/fsnotify"},
		{"quire/vaultindex", "quire/watch"},
		{"quire/tools/notegraph", "quire/vaultindex"},
		{"quire/internal/sqlschema", "quire/kernel/event"},
		{"quire/eval", "quire/test/mcptest"},
		{"quire/test/testkit", "quire/test/ollamatest"},
		{"quire/buildkit/contract", "quire/buildkit/tsgen"},
		{"quire/assembly", "quire/eval"},
	} {
		if !has(c.pkg, c.dep) {
			t.Errorf("%s does not depend on %s: the layering test would pass vacuously", c.pkg, c.dep)
		}
	}
}
