package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/event"
)

// TestGeneratedFileIsFresh fails while the committed TypeScript differs
// from what the Go types generate: a Go payload changed and the frontend
// has not been shown the change yet.
func TestGeneratedFileIsFresh(t *testing.T) {
	root := filepath.Join("..", "..")
	want, err := TypeScript(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, Path))
	if err != nil {
		t.Fatalf("%v: run `%s` from the repository root", err, Command)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: the Go types it is generated from changed (first difference at line %d).\nRun `%s` from the repository root and commit the result; then make the frontend follow (cd frontend && npm run check && npx vitest run).",
			Path, firstDiffLine(got, want), Command)
	}
}

// TestProtocolDocListsTheOperations fails while PROTOCOL.md's list of
// operations differs from what the host ports declare: an operation added,
// renamed or re-typed reaches the document through make generate only.
func TestProtocolDocListsTheOperations(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, ProtocolPath))
	if err != nil {
		t.Fatal(err)
	}
	list, err := OperationsMarkdown(root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := WithOperations(string(doc), list)
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != want {
		t.Fatalf("%s lists operations the ports no longer declare (first difference at line %d).\nRun `%s` from the repository root and commit the result.",
			ProtocolPath, firstDiffLine(doc, []byte(want)), Command)
	}
	for _, row := range []string{"| `Notes.Tree` | `path: string` | `NoteFolder` |", "| `Batches.Apply` | `id: string, d: BatchDecision` | `Batch` | `ApplyBatch` |"} {
		if !strings.Contains(list, row) {
			t.Errorf("the list lacks %q", row)
		}
	}
}

// TestEveryRegisteredPayloadIsMapped keeps the event map complete: a type
// registered in kernel/event and missing here would reach the page untyped.
func TestEveryRegisteredPayloadIsMapped(t *testing.T) {
	src, err := TypeScript("")
	if err != nil {
		t.Fatal(err)
	}
	ts := string(src)
	types := event.Types(false)
	if len(types) < 20 {
		t.Fatalf("only %d registered types", len(types))
	}
	for _, typ := range types {
		pt, _ := event.PayloadType(typ)
		for _, want := range []string{
			"  '" + string(typ) + "': " + pt.Name() + ";\n",
			"  " + constName(typ) + ": '" + string(typ) + "',\n",
		} {
			if !strings.Contains(ts, want) {
				t.Errorf("%s: missing %q", typ, want)
			}
		}
	}
}

func TestConstNameIsTheGoConstant(t *testing.T) {
	cases := map[event.Type]string{
		event.SessionCreated: "SessionCreated", event.AssistantDelta: "AssistantDelta",
		event.PermissionRequested: "PermissionRequested", event.MemoryRemember: "MemoryRemember",
		event.RunInterrupted: "RunInterrupted", event.KernelError: "KernelError",
	}
	for typ, want := range cases {
		if got := constName(typ); got != want {
			t.Errorf("constName(%q) = %q, want %q", typ, got, want)
		}
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
