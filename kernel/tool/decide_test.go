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
		{WriteMemory, "minimal", Deny},
		{WriteMemory, "ask", Ask},
		{WriteMemory, "write", Ask},
		{ReadFs | WriteMemory, "minimal", Deny},
		{ReadFs | WriteMemory, "ask", Ask},
		{ReadFs | WriteMemory, "write", Ask},
		{WriteFs | WriteMemory, "minimal", Deny},
		{WriteFs | WriteMemory, "ask", Ask},
		{WriteFs | WriteMemory, "write", Ask},
		{ReadFs | WriteFs | WriteMemory, "minimal", Deny},
		{ReadFs | WriteFs | WriteMemory, "ask", Ask},
		{ReadFs | WriteFs | WriteMemory, "write", Ask},
		{Net | WriteMemory, "minimal", Deny},
		{Net | WriteMemory, "ask", Ask},
		{Net | WriteMemory, "write", Ask},
		{ReadFs | Net | WriteMemory, "minimal", Deny},
		{ReadFs | Net | WriteMemory, "ask", Ask},
		{ReadFs | Net | WriteMemory, "write", Ask},
		{WriteFs | Net | WriteMemory, "minimal", Deny},
		{WriteFs | Net | WriteMemory, "ask", Ask},
		{WriteFs | Net | WriteMemory, "write", Ask},
		{ReadFs | WriteFs | Net | WriteMemory, "minimal", Deny},
		{ReadFs | WriteFs | Net | WriteMemory, "ask", Ask},
		{ReadFs | WriteFs | Net | WriteMemory, "write", Ask},
		{Exec | WriteMemory, "minimal", Deny},
		{Exec | WriteMemory, "ask", Ask},
		{Exec | WriteMemory, "write", Ask},
		{ReadFs | Exec | WriteMemory, "minimal", Deny},
		{ReadFs | Exec | WriteMemory, "ask", Ask},
		{ReadFs | Exec | WriteMemory, "write", Ask},
		{WriteFs | Exec | WriteMemory, "minimal", Deny},
		{WriteFs | Exec | WriteMemory, "ask", Ask},
		{WriteFs | Exec | WriteMemory, "write", Ask},
		{ReadFs | WriteFs | Exec | WriteMemory, "minimal", Deny},
		{ReadFs | WriteFs | Exec | WriteMemory, "ask", Ask},
		{ReadFs | WriteFs | Exec | WriteMemory, "write", Ask},
		{Net | Exec | WriteMemory, "minimal", Deny},
		{Net | Exec | WriteMemory, "ask", Ask},
		{Net | Exec | WriteMemory, "write", Ask},
		{ReadFs | Net | Exec | WriteMemory, "minimal", Deny},
		{ReadFs | Net | Exec | WriteMemory, "ask", Ask},
		{ReadFs | Net | Exec | WriteMemory, "write", Ask},
		{WriteFs | Net | Exec | WriteMemory, "minimal", Deny},
		{WriteFs | Net | Exec | WriteMemory, "ask", Ask},
		{WriteFs | Net | Exec | WriteMemory, "write", Ask},
		{ReadFs | WriteFs | Net | Exec | WriteMemory, "minimal", Deny},
		{ReadFs | WriteFs | Net | Exec | WriteMemory, "ask", Ask},
		{ReadFs | WriteFs | Net | Exec | WriteMemory, "write", Ask},
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
