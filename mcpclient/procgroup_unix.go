//go:build unix

package mcpclient

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the child in a process group of its own, so a stop
// reaches whatever it started too (an npx wrapper's node, a shell's
// children), and a Ctrl+C in Quire's terminal is not sent to it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the child's whole process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
