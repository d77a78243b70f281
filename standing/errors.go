package standing

import (
	"errors"

	"quire/kernel/protocol"
)

var (
	// ErrNewerSchema: the database was written by a newer Quire.
	ErrNewerSchema = errors.New("the standing tasks' tables are newer than this version of Quire")
	// ErrNotFound: no standing task has that id.
	ErrNotFound = errors.New("no such standing task")
	// ErrBadTask: the task as given cannot run (its sentence says why).
	ErrBadTask = errors.New("the standing task is not valid")
	// ErrBusy: the task has a firing under way or a batch waiting.
	ErrBusy = errors.New("the standing task is already firing or its batch waits for review")
)

func unknown(id string) error {
	return protocol.Refusef(protocol.ErrNotFound, ErrNotFound, "no standing task has the id %q; list the standing tasks to see which there are", id)
}
