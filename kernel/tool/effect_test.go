package tool

import (
	"errors"
	"testing"
)

// TestEffectStringSpellsTheSetAsSettingsDo: names in the order of
// AllEffects joined with "+", "none" for the empty set, and bits no version
// knows shown rather than dropped.
func TestEffectStringSpellsTheSetAsSettingsDo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		effects Effect
		want    string
	}{
		{0, "none"},
		{ReadFs, "read"},
		{WriteFs, "write"},
		{Net, "net"},
		{Exec, "exec"},
		{WriteFs | ReadFs, "read+write"},
		{Exec | ReadFs, "read+exec"},
		{ReadFs | WriteFs | Net | Exec, "read+write+net+exec"},
		{WriteMemory, "memory"},
		{ReadFs | WriteMemory, "read+memory"},
		{Effect(1 << 5), "unknown(0x20)"},
		{ReadFs | Effect(1<<7), "read+unknown(0x80)"},
	} {
		if got := c.effects.String(); got != c.want {
			t.Errorf("Effect(%d).String() = %q, want %q", uint8(c.effects), got, c.want)
		}
	}
}

// TestParseEffectsReadsSettings: the spellings a person writes in a
// settings file, and the refusals that keep a typo from meaning "no effects".
func TestParseEffectsReadsSettings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		want    Effect
		wantErr bool
	}{
		{"none", 0, false},
		{" None ", 0, false},
		{"read", ReadFs, false},
		{"read+write", ReadFs | WriteFs, false},
		{"write+read", ReadFs | WriteFs, false},
		{"READ + Net", ReadFs | Net, false},
		{"exec+exec", Exec, false},
		{"read+write+net+exec", ReadFs | WriteFs | Net | Exec, false},
		{"Memory", WriteMemory, false},
		{"memory+read", ReadFs | WriteMemory, false},
		{"memories", 0, true},
		{"", 0, true},
		{"   ", 0, true},
		{"reads", 0, true},
		{"read,write", 0, true},
		{"read+", 0, true},
		{"+read", 0, true},
		{"none+read", 0, true},
		{"unknown(0x20)", 0, true},
	} {
		got, err := ParseEffects(c.in)
		if c.wantErr {
			if !errors.Is(err, ErrUnknownEffect) {
				t.Errorf("ParseEffects(%q) = %s, %v; want ErrUnknownEffect", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseEffects(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

// TestParseEffectsErrorNamesTheBadPart: the message points at the typo.
func TestParseEffectsErrorNamesTheBadPart(t *testing.T) {
	t.Parallel()
	_, err := ParseEffects("read+wirte")
	want := `unknown effect: "wirte" in "read+wirte" (want "none", or read, write, net, exec, memory joined with "+")`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

// TestEffectsRoundTripThroughSettings: every one of the 32 sets is read
// back as itself from its String.
func TestEffectsRoundTripThroughSettings(t *testing.T) {
	t.Parallel()
	for e := Effect(0); e < 32; e++ {
		got, err := ParseEffects(e.String())
		if err != nil || got != e {
			t.Errorf("ParseEffects(%q) = %s, %v; want %s", e.String(), got, err, e)
		}
	}
}
