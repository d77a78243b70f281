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

// TestAboutYouIsADeploymentFragment: the text sits after Quire's own
// deployment text and before the tools' and working memory's, and an empty
// one leaves the system text as it was.
func TestAboutYouIsADeploymentFragment(t *testing.T) {
	base := Base()
	base.Register(Fragment{Name: "tools", Priority: Tools, Text: "Tool guidance."})
	plain, err := base.Assemble(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	with, err := base.Assemble(WithAboutUser(t.Context(), "Call me Ada."))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range with.Parts {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, ","), "identity,deployment,about-you,tools"; got != want {
		t.Errorf("parts %s, want %s", got, want)
	}
	if len(plain.Parts) != 3 || strings.Contains(plain.Text, "Ada") || !strings.Contains(with.Text, "Call me Ada.") {
		t.Errorf("without the text: %q; with it: %q", plain.Text, with.Text)
	}
}
