package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"quire/kernel/tool"
)

// kit is a notes folder in a temporary directory with the tools on it and
// an in-memory change log that records every result, as the runtime's
// event log would.
type kit struct {
	t     *testing.T
	root  *Root
	dir   string
	log   *MemoryLog
	tools map[string]tool.Tool
	calls atomic.Int64 // each call gets its own id, as the model's calls do
}

func newKit(t *testing.T) *kit {
	t.Helper()
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	k := &kit{t: t, root: r, dir: r.Dir(), log: NewMemoryLog(), tools: map[string]tool.Tool{}}
	for _, tl := range Tools(r, k.log) {
		k.tools[tl.Spec().Name] = tl
	}
	return k
}

// run calls a tool with args (marshalled to JSON) and records its change.
func (k *kit) run(name string, args any) tool.Result {
	k.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		k.t.Fatal(err)
	}
	return k.runRaw(name, fmt.Sprintf("call-%d", k.calls.Add(1)), raw)
}

// runRaw calls a tool with raw arguments under the call id id.
func (k *kit) runRaw(name, id string, raw json.RawMessage) tool.Result {
	k.t.Helper()
	tl, ok := k.tools[name]
	if !ok {
		k.t.Fatalf("no tool %s", name)
	}
	res, err := tl.Run(k.t.Context(), tool.Call{ID: id, Name: name, Arguments: raw})
	if err != nil {
		k.t.Fatalf("%s returned a Go error: %v", name, err)
	}
	k.log.Record(res)
	return res
}

// ok runs a tool that must succeed and returns its result.
func (k *kit) ok(name string, args any) tool.Result {
	k.t.Helper()
	res := k.run(name, args)
	if res.Status != tool.Success {
		k.t.Fatalf("%s(%v): %s: %s", name, args, res.Status, res.Content)
	}
	return res
}

// fails runs a tool that must fail with the given code, and returns the
// sentence it gave.
func (k *kit) fails(name string, args any, code string) string {
	k.t.Helper()
	res := k.run(name, args)
	if res.Status != tool.Failure {
		k.t.Fatalf("%s(%v) = %s (%s), want a failure %s", name, args, res.Status, res.Content, code)
	}
	f, _ := res.Data.(Failure)
	if f.Error != code {
		k.t.Fatalf("%s(%v) failed with %q (%s), want %q", name, args, f.Error, res.Content, code)
	}
	return res.Content
}

func (k *kit) write(rel, content string) {
	k.t.Helper()
	p := filepath.Join(k.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		k.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kit) read(rel string) string {
	k.t.Helper()
	b, err := os.ReadFile(filepath.Join(k.dir, filepath.FromSlash(rel)))
	if err != nil {
		k.t.Fatal(err)
	}
	return string(b)
}

func (k *kit) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(k.dir, filepath.FromSlash(rel)))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		k.t.Fatal(err)
	}
	return err == nil
}

// tree is every file under the folder as "\nrel=content", sorted by name
// as the directory spells it.
func (k *kit) tree() string {
	k.t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(k.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(k.dir, p)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n%s=%s", filepath.ToSlash(rel), content)
		return nil
	})
	if err != nil {
		k.t.Fatal(err)
	}
	return b.String()
}

func change(t *testing.T, res tool.Result) Change {
	t.Helper()
	c, ok := res.Data.(Change)
	if !ok {
		t.Fatalf("the result carries no change: %#v", res.Data)
	}
	return c
}

func contains(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%q does not say %q", got, w)
		}
	}
}

// noTemps fails if a temporary file was left anywhere in the notes folder.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("a temporary file was left behind: %s", p)
		}
		return nil
	})
}
