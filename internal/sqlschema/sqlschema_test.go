package sqlschema

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

var (
	errNewer = errors.New("newer")
	errNone  = errors.New("none")
)

// TestCheckReadsTheVersionAndWritesNothing: a reader's check tells missing,
// older, current and newer tables apart, and leaves the database as it was.
func TestCheckReadsTheVersionAndWritesNothing(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	one := []string{`CREATE TABLE x_a (v INTEGER)`}
	two := append(one, `CREATE TABLE x_b (v INTEGER)`)
	if err := Check(t.Context(), db, "x", one, errNewer, errNone); !errors.Is(err, errNone) {
		t.Fatalf("no tables: %v", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the check wrote %d schema objects (%v)", n, err)
	}
	if err := Migrate(t.Context(), db, "x", one, errNewer); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		migrations []string
		want       error
	}{
		{"current", one, nil},
		{"older than the code", two, ErrOlder},
		{"newer than the code", nil, errNewer},
	} {
		if err := Check(t.Context(), db, "x", c.migrations, errNewer, errNone); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
