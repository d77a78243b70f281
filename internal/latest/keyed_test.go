package latest

import (
	"slices"
	"testing"
)

// A newer state of a key replaces the pending one in its place; other
// keys keep theirs; Take leaves nothing.
func TestKeyedKeepsTheLatestPerKeyInFirstChangeOrder(t *testing.T) {
	cases := []struct {
		name   string
		offers [][2]string // key, value
		want   []string
	}{
		{"one key, replaced", [][2]string{{"a", "a1"}, {"a", "a2"}}, []string{"a2"}},
		{"two keys, the first replaced", [][2]string{{"a", "a1"}, {"b", "b1"}, {"a", "a2"}}, []string{"a2", "b1"}},
		{"none", nil, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := NewKeyed[string]()
			for _, o := range c.offers {
				k.Offer(o[0], o[1])
			}
			if got := k.Take(); !slices.Equal(got, c.want) {
				t.Errorf("took %v, want %v", got, c.want)
			}
			if got := k.Take(); len(got) != 0 {
				t.Errorf("a second Take gave %v", got)
			}
			select {
			case <-k.Wake():
				if len(c.offers) == 0 {
					t.Errorf("woken with nothing offered")
				}
			default:
				if len(c.offers) > 0 {
					t.Errorf("not woken after %d offers", len(c.offers))
				}
			}
		})
	}
}
