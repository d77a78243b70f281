package host_test

import (
	"errors"
	"testing"

	"quire/host"
)

// A session has one claim at a time; Release gives it back (twice is
// harmless), and an old claim's Release never lets a newer one go.
func TestClaimsHoldOneClientPerSession(t *testing.T) {
	var c host.Claims
	first, err := c.Claim("s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Claim("s1"); !errors.Is(err, host.ErrClaimed) {
		t.Fatalf("a second claim: %v", err)
	}
	if _, err := c.Claim("s2"); err != nil {
		t.Fatalf("another session's claim: %v", err)
	}
	if c.Holder("s1") != first {
		t.Fatal("s1's holder is not its claim")
	}
	first.Release()
	if c.Holder("s1") != nil {
		t.Fatal("a released claim still holds s1")
	}
	second, err := c.Claim("s1")
	if err != nil {
		t.Fatalf("a claim after the release: %v", err)
	}
	first.Release()
	if c.Holder("s1") != second {
		t.Fatal("the old claim's second Release let the new one go")
	}
}
