package tool

import (
	"fmt"
	"testing"
)

// TestDecideMatchesThePolicyTable checks all 48 cells (16 effect sets x 3
// profiles) against a table written from the policy as stated, not from the
// code:
//   - "minimal": no effects or ReadFs alone run; anything else is denied.
//   - "ask": no effects or ReadFs alone run; anything with WriteFs, Net or
//     Exec asks.
//   - "write": effects within {ReadFs, WriteFs} run; anything with Net or
//     Exec asks.
//
// Profiles are spelled as settings files spell them, so a renamed constant
// fails here too.
func TestDecideMatchesThePolicyTable(t *testing.T) {
	t.Parallel()
	table := []struct {
		effects Effect
		profile Profile
		want    Decision
	}{
		{0, "minimal", Allow},
		{0, "ask", Allow},
		{0, "write", Allow},
		{ReadFs, "minimal", Allow},
		{ReadFs, "ask", Allow},
		{ReadFs, "write", Allow},
		{WriteFs, "minimal", Deny},
		{WriteFs, "ask", Ask},
		{WriteFs, "write", Allow},
		{ReadFs | WriteFs, "minimal", Deny},
		{ReadFs | WriteFs, "ask", Ask},
		{ReadFs | WriteFs, "write", Allow},
		{Net, "minimal", Deny},
		{Net, "ask", Ask},
		{Net, "write", Ask},
		{ReadFs | Net, "minimal", Deny},
		{ReadFs | Net, "ask", Ask},
		{ReadFs | Net, "write", Ask},
		{WriteFs | Net, "minimal", Deny},
		{WriteFs | Net, "ask", Ask},
		{WriteFs | Net, "write", Ask},
		{ReadFs | WriteFs | Net, "minimal", Deny},
		{ReadFs | WriteFs | Net, "ask", Ask},
		{ReadFs | WriteFs | Net, "write", Ask},
		{Exec, "minimal", Deny},
		{Exec, "ask", Ask},
		{Exec, "write", Ask},
		{ReadFs | Exec, "minimal", Deny},
		{ReadFs | Exec, "ask", Ask},
		{ReadFs | Exec, "write", Ask},
		{WriteFs | Exec, "minimal", Deny},
		{WriteFs | Exec, "ask", Ask},
		{WriteFs | Exec, "write", Ask},
		{ReadFs | WriteFs | Exec, "minimal", Deny},
		{ReadFs | WriteFs | Exec, "ask", Ask},
		{ReadFs | WriteFs | Exec, "write", Ask},
		{Net | Exec, "minimal", Deny},
		{Net | Exec, "ask", Ask},
		{Net | Exec, "write", Ask},
		{ReadFs | Net | Exec, "minimal", Deny},
		{ReadFs | Net | Exec, "ask", Ask},
		{ReadFs | Net | Exec, "write", Ask},
		{WriteFs | Net | Exec, "minimal", Deny},
		{WriteFs | Net | Exec, "ask", Ask},
		{WriteFs | Net | Exec, "write", Ask},
		{ReadFs | WriteFs | Net | Exec, "minimal", Deny},
		{ReadFs | WriteFs | Net | Exec, "ask", Ask},
		{ReadFs | WriteFs | Net | Exec, "write", Ask},
	}
	seen := map[string]bool{}
	for _, c := range table {
		key := fmt.Sprintf("%s under %s", c.effects, c.profile)
		if seen[key] {
			t.Fatalf("the table lists %s twice", key)
		}
		seen[key] = true
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			if got := Decide(c.effects, c.profile); got != c.want {
				t.Errorf("Decide(%s, %q) = %s, want %s", c.effects, c.profile, got, c.want)
			}
		})
	}
	if len(seen) != 48 {
		t.Fatalf("the table has %d distinct cells, want 48", len(seen))
	}
}

// TestDecideDeniesUnderAnUnknownProfile: a profile the policy does not know
// (a typo, a wrong case, a profile of a newer version) allows nothing, not
// even a call with no effects.
func TestDecideDeniesUnderAnUnknownProfile(t *testing.T) {
	t.Parallel()
	for _, p := range []Profile{"Ask", "WRITE", "yolo", "minimal ", "none", "allow"} {
		for e := Effect(0); e < 16; e++ {
			if got := Decide(e, p); got != Deny {
				t.Errorf("Decide(%s, %q) = %s, want deny", e, p, got)
			}
		}
	}
}

// TestDecideAsksForAnEffectItDoesNotKnow: a bit outside AllEffects (a tool
// built for a newer version) is never run without asking under "write", and
// is denied under "minimal".
func TestDecideAsksForAnEffectItDoesNotKnow(t *testing.T) {
	t.Parallel()
	const unknown = Effect(1 << 6)
	for _, c := range []struct {
		effects Effect
		profile Profile
		want    Decision
	}{
		{unknown, "minimal", Deny},
		{unknown, "ask", Ask},
		{unknown, "write", Ask},
		{unknown | ReadFs | WriteFs, "write", Ask},
	} {
		if got := Decide(c.effects, c.profile); got != c.want {
			t.Errorf("Decide(%s, %q) = %s, want %s", c.effects, c.profile, got, c.want)
		}
	}
}

// TestDecideTreatsAnUnsetProfileAsAsk: an empty profile is one nobody set,
// and decides every effect set exactly as "ask" does.
func TestDecideTreatsAnUnsetProfileAsAsk(t *testing.T) {
	t.Parallel()
	for e := Effect(0); e < 16; e++ {
		if got, want := Decide(e, ""), Decide(e, "ask"); got != want {
			t.Errorf("Decide(%s, \"\") = %s, want %s as under \"ask\"", e, got, want)
		}
	}
}
