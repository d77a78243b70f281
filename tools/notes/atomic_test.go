package notes

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/tool"
)

// TestAtomicWriteLeavesNoTempFileOnFailure makes the last step of each
// write fail (the destination is a folder, or already exists) and checks the
// temporary file is gone and nothing else changed.
func TestAtomicWriteLeavesNoTempFileOnFailure(t *testing.T) {
	k := newKit(t)
	k.write("dir/inside.md", "keep")
	if err := k.root.replaceFile("dir", []byte("data"), 0o644); err == nil {
		t.Fatal("renaming a file over a folder succeeded")
	}
	k.write("taken.md", "taken")
	if err := k.root.createFile("taken.md", []byte("new")); !errors.Is(err, errLanded) {
		t.Fatalf("createFile over an existing note: %v", err)
	}
	if err := k.root.createFile("missing/x.md", []byte("new")); err == nil {
		t.Fatal("writing into a missing folder succeeded")
	}
	noTemps(t, k.dir)
	if k.read("dir/inside.md") != "keep" || k.read("taken.md") != "taken" {
		t.Fatal("a failed write changed a file")
	}
	entries, _ := os.ReadDir(k.dir)
	if len(entries) != 2 {
		t.Errorf("%d entries in the notes folder, want 2", len(entries))
	}
}

func TestAtomicWriteReplacesWhole(t *testing.T) {
	k := newKit(t)
	k.write("a.md", strings.Repeat("old ", 1000))
	if err := k.root.replaceFile("a.md", []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(k.dir, "a.md"))
	if k.read("a.md") != "new" || fi.Mode().Perm() != 0o640 {
		t.Errorf("%q, mode %v", k.read("a.md"), fi.Mode().Perm())
	}
	noTemps(t, k.dir)
}

// TestWritesThroughALinkChangeTheTarget: a note reached through a link
// inside the root is written in place, and the link stays a link.
func TestWritesThroughALinkChangeTheTarget(t *testing.T) {
	k := newKit(t)
	k.write("real/plan.md", "plan\n")
	os.Symlink("real", filepath.Join(k.dir, "alias"))
	c := change(t, k.ok("append_note", map[string]any{"path": "alias/plan.md", "text": "more"}))
	if k.read("real/plan.md") != "plan\nmore\n" || c.Path != "real/plan.md" {
		t.Fatalf("%q, change path %s", k.read("real/plan.md"), c.Path)
	}
	if fi, _ := os.Lstat(filepath.Join(k.dir, "alias")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	os.Symlink(filepath.Join("real", "plan.md"), filepath.Join(k.dir, "pl.md"))
	contains(t, k.fails("move_note", map[string]any{"from": "pl.md", "to": "x.md"}, "not_note"), "symbolic link")
}

func TestSpecsDescribeEachTool(t *testing.T) {
	k := newKit(t)
	want := map[string]struct {
		effects  tool.Effect
		idem     tool.Idempotency
		required []string
	}{
		"list_notes":  {tool.ReadFs, tool.Safe, []string{}},
		"read_note":   {tool.ReadFs, tool.Safe, []string{"path"}},
		"find_notes":  {tool.ReadFs, tool.Safe, []string{"query"}},
		"create_note": {tool.WriteFs, tool.Keyed, []string{"path", "content"}},
		"append_note": {tool.WriteFs, tool.Unsafe, []string{"path", "text"}},
		"edit_note":   {tool.WriteFs, tool.Unsafe, []string{"path", "find", "replace"}},
		"move_note":   {tool.WriteFs, tool.Keyed, []string{"from", "to"}},
		"make_folder": {tool.WriteFs, tool.Safe, []string{"path"}},
		"set_tags":    {tool.WriteFs, tool.Unsafe, []string{"path", "tags"}},
		"link_notes":  {tool.WriteFs, tool.Unsafe, []string{"from", "to"}},
		"undo":        {tool.WriteFs, tool.Unsafe, []string{"changeId"}},
	}
	if len(k.tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(k.tools), len(want))
	}
	for name, w := range want {
		s := k.tools[name].Spec()
		if s.Effects != w.effects || s.Idempotency != w.idem || s.Timeout <= 0 || len(s.Description) < 60 {
			t.Errorf("%s: %+v", name, s)
		}
		if s.Parallel != (w.effects == tool.ReadFs) {
			t.Errorf("%s: parallel %v", name, s.Parallel)
		}
		raw, err := json.Marshal(s.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Type       string
			Properties map[string]map[string]any
			Required   []string
			Additional bool `json:"additionalProperties"`
		}
		json.Unmarshal(raw, &schema)
		if schema.Type != "object" || schema.Additional || strings.Join(schema.Required, ",") != strings.Join(w.required, ",") {
			t.Errorf("%s schema: %s", name, raw)
		}
		for p, ps := range schema.Properties {
			if ps["type"] == nil || ps["description"] == nil {
				t.Errorf("%s.%s has no type or description", name, p)
			}
		}
	}
}

func TestArgumentsAreCheckedStrictly(t *testing.T) {
	k := newKit(t)
	msg := k.fails("create_note", map[string]any{"path": "a.md", "content": "x", "request_id": "1"}, "invalid_args")
	contains(t, msg, "create_note", "{path, content, requestId?}", "request_id")
	k.fails("read_note", map[string]any{"path": 3}, "invalid_args")
	if res := k.runRaw("list_notes", "c", json.RawMessage(`[1]`)); res.Data.(Failure).Error != "invalid_args" {
		t.Errorf("an array for arguments: %s", res.Content)
	}
	if res := k.runRaw("list_notes", "c", nil); res.Status != tool.Empty {
		t.Errorf("no arguments at all: %s %s", res.Status, res.Content)
	}
}

func TestACancelledCallDoesNothing(t *testing.T) {
	k := newKit(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := k.tools["create_note"].Run(ctx, tool.Call{ID: "x", Name: "create_note", Arguments: json.RawMessage(`{"path":"a.md","content":"x"}`)})
	if err != nil || res.Status != tool.Failure || res.Data.(Failure).Error != "cancelled" || k.exists("a.md") {
		t.Fatalf("%v %+v", err, res)
	}
}
