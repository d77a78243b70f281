//go:build !unix

package cli

import "os/exec"

// stopWhole leaves c as exec makes it: without Unix process groups, its
// cancellation kills the program's own process only.
func stopWhole(*exec.Cmd) {}
