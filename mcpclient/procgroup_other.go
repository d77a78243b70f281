//go:build !unix

package mcpclient

import "os/exec"

// ownGroup has no process groups to use here: the child alone is killed.
func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
