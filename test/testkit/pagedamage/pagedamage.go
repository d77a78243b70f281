// Package pagedamage damages SQLite files for tests the way a torn write or
// a failing disk does while leaving each page's structure readable: the
// damage SQLite's quick_check passes and its integrity_check finds (issue
// 13: "row not in PRIMARY KEY order").
//
// It imports only the standard library, so kernel/store's internal tests
// may use it as well as the composition root's.
package pagedamage

import (
	"bytes"
	"os"
	"testing"
)

// PageSize is the page size of Quire's databases (SQLite's default).
const PageSize = 4096

// FlipKeys changes, in up to want leaf pages of WITHOUT ROWID tables
// (b-tree leaf pages of type 0x0a, spread over the file), the byte after the
// first occurrence of key in the second half of the page to '9', so a row
// in the middle of the page sorts after its neighbours. key should start the
// primary key of the rows (Quire's events: the session id). It returns how
// many pages it changed.
func FlipKeys(t testing.TB, path, key string, want int) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var leaves []int
	for p := 1; p < len(data)/PageSize; p++ { // page 0 holds the schema
		if data[p*PageSize] == 0x0a {
			leaves = append(leaves, p)
		}
	}
	step := max(1, len(leaves)/max(1, want))
	flipped := 0
	for i := 0; i < len(leaves) && flipped < want; i += step {
		half := data[leaves[i]*PageSize+PageSize/2 : (leaves[i]+1)*PageSize]
		at := bytes.Index(half, []byte(key))
		if at < 0 || at+len(key) >= len(half) {
			continue
		}
		half[at+len(key)] = '9'
		flipped++
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return flipped
}

// BreakPage makes the first b-tree leaf page that holds marker unreadable
// as a page (its type byte zeroed), the damage quick_check reports for
// that page's table. It returns the page's number, 0 when none holds it.
func BreakPage(t testing.TB, path, marker string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for p := 1; p < len(data)/PageSize; p++ {
		page := data[p*PageSize : (p+1)*PageSize]
		if (page[0] == 0x0a || page[0] == 0x0d) && bytes.Contains(page, []byte(marker)) {
			page[0] = 0
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	return 0
}
