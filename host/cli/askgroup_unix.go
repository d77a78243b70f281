//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// stopWhole makes c's process the leader of a process group of its own and
// its cancellation a SIGKILL of that whole group: an -ask program is a
// shell command, and exec's own cancel kills only the shell, so a pipeline
// or a background command of the program would outlive the No it ended in.
func stopWhole(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error {
		if c.Process == nil {
			return nil
		}
		return syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
