package tool

import (
	"fmt"
	"testing"
)

// TestDecideMatchesThePolicyTable checks all 96 cells (32 effect sets x 3
// profiles) against a table written from the policy as stated, not from the
// code:
//   - "minimal": no effects or ReadFs alone run; anything else is denied.
//   - "ask": no effects or ReadFs alone run; anything with WriteFs, Net,
//     Exec or WriteMemory asks.
//   - "write": effects within {ReadFs, WriteFs} run; anything with Net,
//     Exec or WriteMemory asks (a memory write is never a note write).
//
// Profiles are spelled as settings files spell them, so a renamed constant
// fails here too.
func TestDecideMatchesThePolicyTable(t *testing.T) {
	t.Parallel()
	// One row an effect set, one column a profile, so each cell reads
	// against its neighbours the way the policy above is stated.
	table := []struct {
		effects             Effect
		minimal, ask, write Decision
	}{
		{0, Allow, Allow, Allow},
		{ReadFs, Allow, Allow, Allow},
		{WriteFs, Deny, Ask, Allow},
		{ReadFs | WriteFs, Deny, Ask, Allow},
		{Net, Deny, Ask, Ask},
		{ReadFs | Net, Deny, Ask, Ask},
		{WriteFs | Net, Deny, Ask, Ask},
		{ReadFs | WriteFs | Net, Deny, Ask, Ask},
		{Exec, Deny, Ask, Ask},
		{ReadFs | Exec, Deny, Ask, Ask},
		{WriteFs | Exec, Deny, Ask, Ask},
		{ReadFs | WriteFs | Exec, Deny, Ask, Ask},
		{Net | Exec, Deny, Ask, Ask},
		{ReadFs | Net | Exec, Deny, Ask, Ask},
		{WriteFs | Net | Exec, Deny, Ask, Ask},
		{ReadFs | WriteFs | Net | Exec, Deny, Ask, Ask},
		{WriteMemory, Deny, Ask, Ask},
		{ReadFs | WriteMemory, Deny, Ask, Ask},
		{WriteFs | WriteMemory, Deny, Ask, Ask},
		{ReadFs | WriteFs | WriteMemory, Deny, Ask, Ask},
		{Net | WriteMemory, Deny, Ask, Ask},
		{ReadFs | Net | WriteMemory, Deny, Ask, Ask},
		{WriteFs | Net | WriteMemory, Deny, Ask, Ask},
		{ReadFs | WriteFs | Net | WriteMemory, Deny, Ask, Ask},
		{Exec | WriteMemory, Deny, Ask, Ask},
		{ReadFs | Exec | WriteMemory, Deny, Ask, Ask},
		{WriteFs | Exec | WriteMemory, Deny, Ask, Ask},
		{ReadFs | WriteFs | Exec | WriteMemory, Deny, Ask, Ask},
		{Net | Exec | WriteMemory, Deny, Ask, Ask},
		{ReadFs | Net | Exec | WriteMemory, Deny, Ask, Ask},
		{WriteFs | Net | Exec | WriteMemory, Deny, Ask, Ask},
		{ReadFs | WriteFs | Net | Exec | WriteMemory, Deny, Ask, Ask},
	}
	seen := map[string]bool{}
	for _, row := range table {
		for _, c := range []struct {
			profile Profile
			want    Decision
		}{{"minimal", row.minimal}, {"ask", row.ask}, {"write", row.write}} {
			key := fmt.Sprintf("%s under %s", row.effects, c.profile)
			if seen[key] {
				t.Fatalf("the table lists %s twice", key)
			}
			seen[key] = true
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				if got := Decide(row.effects, c.profile); got != c.want {
					t.Errorf("Decide(%s, %q) = %s, want %s", row.effects, c.profile, got, c.want)
				}
			})
		}
	}
	if len(seen) != 96 {
		t.Fatalf("the table has %d distinct cells, want 96", len(seen))
	}
}

// TestDecideDeniesUnderAnUnknownProfile: a profile the policy does not know
// (a typo, a wrong case, a profile of a newer version) allows nothing, not
// even a call with no effects.
func TestDecideDeniesUnderAnUnknownProfile(t *testing.T) {
	t.Parallel()
	for _, p := range []Profile{"Ask", "WRITE", "yolo", "minimal ", "none", "allow"} {
		for e := Effect(0); e < 32; e++ {
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
		{unknown | WriteMemory, "ask", Ask},
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
	for e := Effect(0); e < 32; e++ {
		if got, want := Decide(e, ""), Decide(e, "ask"); got != want {
			t.Errorf("Decide(%s, \"\") = %s, want %s as under \"ask\"", e, got, want)
		}
	}
}

// TestDecideGrantedLetsOnlyAnUnreadMemoryWriteRun: "remember without
// asking" lifts a question about a memory write, and nothing else: not a
// deny, not a note write or the network a tool claims as granted, not a bit
// this version does not know — and not once the conversation has read a
// document or a note, whose text the proposal may come from.
func TestDecideGrantedLetsOnlyAnUnreadMemoryWriteRun(t *testing.T) {
	t.Parallel()
	const unknown = Effect(1 << 6)
	for _, c := range []struct {
		effects, granted Effect
		profile          Profile
		read             bool
		want             Decision
	}{
		{WriteMemory, WriteMemory, "ask", false, Allow},
		{WriteMemory, WriteMemory, "write", false, Allow},
		{WriteMemory, WriteMemory, "", false, Allow},
		{ReadFs | WriteMemory, WriteMemory, "ask", false, Allow},
		{WriteMemory, WriteMemory, "ask", true, Ask},
		{WriteMemory, WriteMemory, "write", true, Ask},
		{WriteMemory, 0, "ask", false, Ask},
		{WriteMemory, WriteMemory, "minimal", false, Deny},
		{WriteMemory, WriteMemory, "yolo", false, Deny},
		{WriteFs, WriteFs, "ask", false, Ask},
		{Net | WriteMemory, Net | WriteMemory, "ask", false, Ask},
		{Exec, Exec | WriteMemory, "ask", false, Ask},
		{WriteMemory | WriteFs, WriteMemory, "ask", false, Ask},
		{unknown | WriteMemory, unknown | WriteMemory, "ask", false, Ask},
		{0, WriteMemory, "ask", true, Allow},
		{ReadFs, 0, "minimal", true, Allow},
	} {
		if got := DecideGranted(c.effects, c.profile, c.granted, c.read); got != c.want {
			t.Errorf("DecideGranted(%s, %q, granted %s, read %v) = %s, want %s", c.effects, c.profile, c.granted, c.read, got, c.want)
		}
	}
}
