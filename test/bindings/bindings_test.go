// Package bindings checks that frontend/wailsjs is what Wails generates from
// the window host's bound App today. The bindings are generated the way the
// Wails CLI does it, without the CLI: the root package is built with
// `-tags bindings` and run; Wails' bindings mode writes
// <wailsjsdir>/wailsjs/{go,runtime} (wailsjsdir from the wails.json in the
// working directory) and returns before any window opens.
//
// `make bindings` (go test ./test/bindings -update) regenerates them in place.
package bindings

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate frontend/wailsjs in the repository instead of checking it")

// root is the repository, two levels up from this package.
const root = "../.."

func TestBindingsAreFresh(t *testing.T) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rootAbs, "wails.json")); err != nil {
		t.Fatalf("no wails.json at the repository root: %v", err)
	}
	bin := buildGenerator(t, rootAbs)
	if *update {
		generate(t, bin, rootAbs)
		cliModes(t, filepath.Join(rootAbs, wailsJSDir(t, readConfig(t, rootAbs)), "wailsjs"))
		return
	}

	// A throwaway project folder holding only wails.json: the generated tree
	// lands under it, never in the repository.
	dir := t.TempDir()
	cfg := readConfig(t, rootAbs)
	if err := os.WriteFile(filepath.Join(dir, "wails.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	generate(t, bin, dir)

	rel := filepath.Join(wailsJSDir(t, cfg), "wailsjs")
	want := readTree(t, filepath.Join(dir, rel))
	got := readTree(t, filepath.Join(rootAbs, rel))
	if len(want) == 0 {
		t.Fatalf("the generator wrote nothing under %s", rel)
	}
	if diff := compare(want, got); diff != "" {
		t.Errorf("%s is stale: it is not what App's bound methods (host/window) generate today.\n%s\nRun `make bindings` and commit the result.", rel, diff)
	}
}

func readConfig(t *testing.T, rootAbs string) []byte {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join(rootAbs, "wails.json"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// cliModes leaves the files as `wails build` and `wails dev` do, so neither
// shows a mode change after `make bindings`: the bindings mode makes every
// file 0755, then the CLI extracts the runtime again as 0644.
func cliModes(t *testing.T, wailsjs string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(wailsjs, "runtime"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(path, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// buildGenerator builds the root package with Wails' bindings tag.
func buildGenerator(t *testing.T, rootAbs string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the bindings generator: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "quire-bindings")
	cmd := exec.Command(goBin, "build", "-tags", "bindings", "-o", bin, ".")
	cmd.Dir = rootAbs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags bindings: %v\n%s", err, out)
	}
	return bin
}

// generate runs the generator in project folder dir. Its data folder is a
// temporary one and Ollama's address a closed port, so it touches none of
// the user's data or services on its way to wails.Run.
func generate(t *testing.T, bin, dir string) {
	t.Helper()
	data := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(environ(), "QUIRE_DATA_DIR="+data, "OLLAMA_HOST=http://127.0.0.1:1",
		"XDG_DATA_HOME="+data, "XDG_CONFIG_HOME="+data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the bindings generator failed: %v\n%s", err, out)
	}
}

// environ is this process's environment without what would change the
// generated files (Wails' TypeScript prefix, suffix and output type) or
// point the app at the user's data, notes or Ollama.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "tsprefix", k == "tssuffix", k == "tsoutputtype",
			strings.HasPrefix(k, "QUIRE_"), k == "OLLAMA_HOST", strings.HasPrefix(k, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// wailsJSDir reads wails.json's wailsjsdir (Wails' default: the frontend dir).
func wailsJSDir(t *testing.T, cfg []byte) string {
	t.Helper()
	var c struct {
		WailsJSDir  string `json:"wailsjsdir"`
		FrontendDir string `json:"frontend:dir"`
	}
	if err := json.Unmarshal(cfg, &c); err != nil {
		t.Fatalf("wails.json: %v", err)
	}
	for _, d := range []string{c.WailsJSDir, c.FrontendDir, "frontend"} {
		if d != "" {
			return filepath.Clean(d)
		}
	}
	return "frontend"
}

// readTree maps each regular file under dir (slash paths) to its content.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// compare names every file missing, extra or different, with the first
// differing line of each; "" when the trees are equal.
func compare(want, got map[string][]byte) string {
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range got {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for _, n := range sorted {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			fmt.Fprintf(&b, "  %s: missing (the generator writes it)\n", n)
		case !inWant:
			fmt.Fprintf(&b, "  %s: not generated any more\n", n)
		case !bytes.Equal(w, g):
			fmt.Fprintf(&b, "  %s: differs; %s\n", n, firstDiff(w, g))
		}
	}
	return b.String()
}

func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d: generated %q, committed %q", i+1, w, g)
		}
	}
	return "same lines, different bytes"
}
