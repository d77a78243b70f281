package prompt

import (
	"strings"
	"testing"
)

// TestBaseSaysWhoAndWhereFirst: Quire's own text comes before any other
// part's fragment, identity then deployment, in the system zone.
func TestBaseSaysWhoAndWhereFirst(t *testing.T) {
	a := Base()
	a.Register(Fragment{Name: "tools", Priority: Tools, Text: "Use the tools."})
	got, err := a.Assemble(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Zones) != 1 || got.Zones[0].Zone != SystemZone {
		t.Fatalf("zones %+v", got.Zones)
	}
	who := strings.Index(got.Text, "You are Quire")
	where := strings.Index(got.Text, "on the user's own computer")
	tools := strings.Index(got.Text, "Use the tools.")
	if who != 0 || where < who || tools < where {
		t.Fatalf("order of the base text: %q", got.Text)
	}
}
