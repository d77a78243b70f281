package host

import (
	"errors"
	"fmt"
	"testing"

	"quire/kernel/protocol"
)

// TestSpokenSaysTheDiskIsFullAndKeepsTheClass: a full disk, however deep
// its wrapping, reads as the page's one sentence and is still the class
// and the cause; any other error is untouched.
func TestSpokenSaysTheDiskIsFullAndKeepsTheClass(t *testing.T) {
	t.Parallel()
	cause := errors.New("database or disk is full (13)")
	full := fmt.Errorf("send: %w", fmt.Errorf("%w: %w", protocol.ErrNoSpace, cause))
	other := fmt.Errorf("send: %w", protocol.ErrNotFound)
	for _, c := range []struct {
		name string
		err  error
		want string // "" for nil
	}{
		{"a full disk", full, DiskFull},
		{"another class", other, other.Error()},
		{"no error", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Spoken(c.err)
			if c.err == nil {
				if got != nil {
					t.Fatalf("Spoken(nil) = %v", got)
				}
				return
			}
			if got.Error() != c.want {
				t.Errorf("said %q, want %q", got.Error(), c.want)
			}
			if !errors.Is(got, c.err) {
				t.Errorf("%v lost what it wraps", got)
			}
		})
	}
	if !errors.Is(Spoken(full), protocol.ErrNoSpace) || !errors.Is(Spoken(full), cause) {
		t.Error("the sentence hides the class or the cause")
	}
}
