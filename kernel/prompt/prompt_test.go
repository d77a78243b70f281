package prompt

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestAssembleOrdersByPriorityThenRegistration(t *testing.T) {
	a := New()
	a.Register(Fragment{Name: "tools", Priority: Tools, Text: "You can search documents."})
	a.Register(Fragment{Name: "identity", Priority: Identity, Text: "You are Quire."})
	a.Register(Fragment{Name: "deploy-1", Priority: Deployment, Text: "Offline."})
	a.Register(Fragment{Name: "deploy-2", Priority: Deployment, Text: "Notes live in ~/Notes."})
	a.Register(Fragment{Name: "empty", Priority: 5, Text: "   "})
	got, err := a.Assemble(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got.Parts {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "identity,deploy-1,deploy-2,tools" {
		t.Fatalf("order %v", names)
	}
	if !strings.HasPrefix(got.Text, "You are Quire.\n\nOffline.") {
		t.Fatalf("text %q", got.Text)
	}
}

func TestDynamicFragmentsAreEvaluatedAtEachAssembly(t *testing.T) {
	a := New()
	n := 0
	a.Register(Fragment{Name: "clock", Dynamic: func(context.Context) (string, error) { n++; return strings.Repeat("x", n), nil }})
	first, _ := a.Assemble(context.Background())
	second, _ := a.Assemble(context.Background())
	if first.Text != "x" || second.Text != "xx" || first.Hash() == second.Hash() {
		t.Fatalf("dynamic fragment: %q then %q", first.Text, second.Text)
	}
	a.Register(Fragment{Name: "broken", Dynamic: func(context.Context) (string, error) { return "", errors.New("disk gone") }})
	if _, err := a.Assemble(context.Background()); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("a failing fragment: %v", err)
	}
}

func TestUnregisterAndTakeOver(t *testing.T) {
	a := New()
	a.Register(Fragment{Name: "identity", Priority: Identity, Text: "You are Quire."})
	stop := a.Register(Fragment{Name: "mode", Priority: Deployment, Text: "Only answer in JSON.", TakeOver: true})
	a.Register(Fragment{Name: "tools", Priority: Tools, Text: "Tools..."})
	got, _ := a.Assemble(context.Background())
	if got.Text != "You are Quire.\n\nOnly answer in JSON." {
		t.Fatalf("take-over: %q", got.Text)
	}
	stop()
	got, _ = a.Assemble(context.Background())
	if got.Text != "You are Quire.\n\nTools..." {
		t.Fatalf("after unregister: %q", got.Text)
	}
	same, _ := a.Assemble(context.Background())
	if same.Hash() != got.Hash() {
		t.Fatal("the same text hashed differently")
	}
}

func TestZonesComeInOrderEachWithItsText(t *testing.T) {
	a := New()
	a.Register(Fragment{Name: "memory", Zone: WorkingZone, Text: "Open: file plan.md"})
	a.Register(Fragment{Name: "goal", Zone: TaskZone, Text: "Tidy the inbox."})
	a.Register(Fragment{Name: "identity", Priority: Identity, Text: "You are Quire."})
	got, err := a.Assemble(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var zones []string
	for _, z := range got.Zones {
		zones = append(zones, string(z.Zone)+"="+z.Text)
	}
	if strings.Join(zones, "|") != "system=You are Quire.|task=Tidy the inbox.|working-memory=Open: file plan.md" {
		t.Fatalf("zones %v", zones)
	}
	a.Register(Fragment{Name: "bad", Zone: "elsewhere", Text: "x"})
	if _, err := a.Assemble(context.Background()); err == nil {
		t.Fatal("an unknown zone was accepted")
	}
}

func TestTheSameTextInAnotherZoneHashesDifferently(t *testing.T) {
	x, y := New(), New()
	x.Register(Fragment{Name: "a", Text: "same"})
	y.Register(Fragment{Name: "a", Zone: TaskZone, Text: "same"})
	ax, _ := x.Assemble(context.Background())
	ay, _ := y.Assemble(context.Background())
	if ax.Hash() == ay.Hash() {
		t.Fatal("a zone change did not change the hash")
	}
}

// TestOfferedToolsAreWhatTheRunGave: a dynamic fragment reads the tools
// the run froze from its context, and nothing outside a run's assembly.
func TestOfferedToolsAreWhatTheRunGave(t *testing.T) {
	if got := OfferedTools(context.Background()); got != nil {
		t.Fatalf("outside a run: %v", got)
	}
	frozen := map[string]map[string]any{"load_skill": {"type": "object"}}
	a := New()
	var seen map[string]map[string]any
	a.Register(Fragment{Name: "reader", Dynamic: func(ctx context.Context) (string, error) {
		seen = OfferedTools(ctx)
		return "x", nil
	}})
	if _, err := a.Assemble(WithTools(context.Background(), frozen)); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen["load_skill"]["type"] != "object" {
		t.Fatalf("the fragment saw %v", seen)
	}
}
