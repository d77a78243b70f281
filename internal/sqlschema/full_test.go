package sqlschema

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"quire/kernel/event"
)

// coded is an error with a result code, as the SQL driver's errors have.
type coded int

func (c coded) Error() string { return fmt.Sprintf("sqlite error %d", int(c)) }
func (c coded) Code() int     { return int(c) }

// TestNoSpaceClassifiesWhatTheDriverSays: SQLITE_FULL (primary or extended
// code), ENOSPC and the driver's message flattened to text are
// event.ErrNoSpace, once; anything else is left as it is.
func TestNoSpaceClassifiesWhatTheDriverSays(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		full bool
	}{
		{"SQLITE_FULL", fmt.Errorf("rag: %w", coded(13)), true},
		{"an extended SQLITE_FULL", coded(13 | 3<<8), true},
		{"SQLITE_IOERR_SHMSIZE", coded(4874), true},
		{"another SQLITE_IOERR", coded(10 | 3<<8), false},
		{"ENOSPC", &fs.PathError{Op: "write", Path: "quire.db-wal", Err: syscall.ENOSPC}, true},
		{"text only", errors.New("rag: database or disk is full (13)"), true},
		{"joined", errors.Join(errors.New("a root is missing"), coded(13)), true},
		{"SQLITE_BUSY", coded(5), false},
		{"another error", errors.New("no such table"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NoSpace(tc.err)
			if errors.Is(got, event.ErrNoSpace) != tc.full {
				t.Fatalf("NoSpace(%v) = %v; want ErrNoSpace: %v", tc.err, got, tc.full)
			}
			if !errors.Is(got, tc.err) {
				t.Fatalf("NoSpace(%v) = %v lost the cause", tc.err, got)
			}
			if again := NoSpace(got); again.Error() != got.Error() {
				t.Fatalf("classified twice: %q", again)
			}
			if tc.full && strings.Count(got.Error(), event.ErrNoSpace.Error()) != 1 {
				t.Fatalf("the sentence is not said once: %q", got)
			}
		})
	}
	if NoSpace(nil) != nil {
		t.Fatal("NoSpace(nil) is not nil")
	}
}
